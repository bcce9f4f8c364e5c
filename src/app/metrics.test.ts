import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type RunEvent } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { MAX_LABEL_VALUES, ToolgateMetrics } from './metrics.ts';

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

describe('ToolgateMetrics', () => {
  it(
    'answers while the store cannot be read: toolgate_store_up 0 and no ' +
      'waiting-run values rather than stale ones; 1 and the values once it is back',
    async () => {
      const memory = new MemoryRunStore();
      let down = false;
      const store = {
        getRun: (id: string) => memory.getRun(id),
        listRuns: (query?: Parameters<MemoryRunStore['listRuns']>[0]) =>
          down
            ? Promise.reject(
                new ToolgateError(
                  'store_unavailable',
                  'PostgreSQL store postgres://db/toolgate: could not list runs: connect ECONNREFUSED',
                ),
              )
            : memory.listRuns(query),
      };
      const metrics = new ToolgateMetrics({ store, processMetrics: false });
      const run = await memory.createRun({ input: 'x', model: 'm' });
      await memory.append(run.id, [], { status: 'waiting_approval' });
      const scrape = async (): Promise<string> => (await metrics.render()).body;

      assert.match(await scrape(), /^toolgate_store_up 1$/m);
      assert.match(await scrape(), /^toolgate_runs_waiting\{reason="approval"\} 1$/m);
      down = true;
      // Past the read a scrape shares with the next one.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const during = await scrape();
      assert.match(during, /^toolgate_store_up 0$/m);
      assert.doesNotMatch(during, /^toolgate_runs_waiting(_oldest_seconds)?\{/m);
      down = false;
      await new Promise((resolve) => setTimeout(resolve, 600));
      const after = await scrape();
      assert.match(after, /^toolgate_store_up 1$/m);
      assert.match(after, /^toolgate_runs_waiting\{reason="approval"\} 1$/m);
    },
  );

  it('bounds every label: past MAX_LABEL_VALUES tool names, calls are counted as "other"', async () => {
    const store = new MemoryRunStore();
    const metrics = new ToolgateMetrics({ store, processMetrics: false });
    const run = await store.createRun({ input: 'x', model: 'm' });
    const events: RunEvent[] = [];
    for (let i = 0; i < MAX_LABEL_VALUES + 50; i++) {
      const appended = await store.append(run.id, [
        draft('gate_decision', {
          step: 1,
          toolCallId: `c${i}`,
          name: `made_up_${i}`,
          effect: 'read',
          decision: 'denied',
          normalisations: [],
          injected: [],
        }),
      ]);
      events.push(...appended);
    }
    metrics.observe(events);
    await settle();
    const text = (await metrics.render()).body;
    const lines = text.split('\n').filter((l) => l.startsWith('toolgate_tool_calls_total{'));
    assert.equal(lines.length, MAX_LABEL_VALUES + 1);
    assert.match(text, /toolgate_tool_calls_total\{tool="other",effect="read",outcome="denied"\} 50/);
  });

  it('counts parse repairs by family and code, and retries by their first code', async () => {
    const store = new MemoryRunStore();
    const metrics = new ToolgateMetrics({ store, processMetrics: false });
    const run = await store.createRun({ input: 'x', model: 'm' });
    const events = await store.append(run.id, [
      draft('assistant_message', {
        step: 1,
        text: '<tool_call>{"name": "a", "arguments": {,}}</tool_call>',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 5,
        diagnostics: [{ code: 'repaired_json', message: 'trailing comma' }],
      }),
      draft('parse_retry', {
        step: 1,
        attempt: 1,
        maxAttempts: 4,
        diagnostics: [{ code: 'unknown_tool', message: 'no tool a' }],
        feedback: 'f',
      }),
    ]);
    metrics.observe(events);
    await settle();
    const text = (await metrics.render()).body;
    assert.match(text, /toolgate_parse_repairs_total\{family="hermes",code="repaired_json"\} 1/);
    assert.match(text, /toolgate_parse_retries_total\{code="unknown_tool"\} 1/);
    assert.match(text, /toolgate_model_call_duration_seconds_count\{model="m"\} 1/);
  });

  it('counts prompt-cache tokens as parts of the input, only when the provider reported them', async () => {
    const store = new MemoryRunStore();
    const metrics = new ToolgateMetrics({ store, processMetrics: false });
    const run = await store.createRun({ input: 'x', model: 'anthropic:claude' });
    const usage = { promptTokens: 28, completionTokens: 12, totalTokens: 40, cacheReadTokens: 5, cacheWriteTokens: 3 };
    const events = await store.append(run.id, [
      draft('assistant_message', { step: 1, text: 'a', toolCalls: [], finishReason: 'stop', latencyMs: 5, usage }),
      draft('assistant_message', {
        step: 2,
        text: 'b',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 5,
        usage: { promptTokens: 10, completionTokens: 1, totalTokens: 11 },
      }),
    ]);
    metrics.observe(events);
    await settle();
    const text = (await metrics.render()).body;
    assert.match(text, /toolgate_tokens_total\{model="anthropic:claude",direction="input"\} 38/);
    assert.match(text, /toolgate_tokens_total\{model="anthropic:claude",direction="cache_read"\} 5/);
    assert.match(text, /toolgate_tokens_total\{model="anthropic:claude",direction="cache_write"\} 3/);
  });

  it('counts the tokens toolgate estimated apart, by direction, within the tokens total', async () => {
    const store = new MemoryRunStore();
    const metrics = new ToolgateMetrics({ store, processMetrics: false });
    const run = await store.createRun({ input: 'x', model: 'openai:local' });
    const events = await store.append(run.id, [
      // No usage at all: both estimated.
      draft('assistant_message', {
        step: 1,
        text: 'a',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 5,
        usage: { promptTokens: 30, completionTokens: 4, totalTokens: 34, estimated: true },
      }),
      // Prompt tokens reported, the answer's estimated.
      draft('assistant_message', {
        step: 2,
        text: 'b',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 5,
        usage: {
          promptTokens: 50,
          completionTokens: 6,
          totalTokens: 56,
          estimated: true,
          estimatedOnly: 'completionTokens',
        },
      }),
      // Reported in full.
      draft('assistant_message', {
        step: 3,
        text: 'c',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 5,
        usage: { promptTokens: 70, completionTokens: 9, totalTokens: 79 },
      }),
    ]);
    metrics.observe(events);
    await settle();
    const text = (await metrics.render()).body;
    assert.match(text, /toolgate_tokens_total\{model="openai:local",direction="input"\} 150/);
    assert.match(text, /toolgate_tokens_total\{model="openai:local",direction="output"\} 19/);
    assert.match(text, /toolgate_tokens_estimated_total\{model="openai:local",direction="input"\} 30/);
    assert.match(text, /toolgate_tokens_estimated_total\{model="openai:local",direction="output"\} 10/);
  });
});
