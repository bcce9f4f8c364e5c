// Per-step signals and the guard that reads them, end to end: the real OpenAI adapter against the mock model server,
// in-process tools (a quote that changes on every call, a slow lookup) and the run log in a SQLite file.
// Conflicting results make the run plan again (react: a plan; plan: plan_revised); slow tools (p95) make it answer
// from what it has; a reflection's confidence is recorded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import { defineTool } from '../../src/tools/local/define-tool.ts';
import { LocalToolSource } from '../../src/tools/local/local-tool-source.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';

const call = (name: string, args: unknown = {}, id = name) => ({ id, name, arguments: JSON.stringify(args) });
let quotes = 0;

const local = new LocalToolSource({
  tools: [
    defineTool({
      name: 'getQuote',
      description: 'The current quote of a symbol.',
      inputSchema: { type: 'object', properties: { sym: { type: 'string' } } },
      effect: 'read',
      // X is a flaky venue: every answer differs from the last.
      execute: (args) => (args['sym'] === 'X' ? `X quoted at ${100 + ++quotes}` : 'Y quoted at 50'),
    }),
    defineTool({
      name: 'brokenFeed',
      description: 'A feed that is down.',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: () => {
        throw new Error('feed down');
      },
    }),
    defineTool({
      name: 'slowLookup',
      description: 'Looks something up, slowly.',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' }, n: { type: 'number' } } },
      effect: 'read',
      execute: async (args) => {
        await sleep(typeof args['ms'] === 'number' ? args['ms'] : 100);
        return `found ${String(args['n'])}`;
      },
    }),
  ],
});

describe('per-step signals and the guard (e2e)', () => {
  let mock: MockOpenAI;
  let dir: string;
  const open: Toolgate[] = [];
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-signals-'));
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function toolgate(config: Partial<ToolgateConfig>): Promise<Toolgate> {
    const settings = resolveSettings(
      { model: 'openai:m', providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } }, ...config },
      {},
      {},
    );
    const store = await openStore(`sqlite:${join(dir, `runs-${open.length}.db`)}`);
    const t = new Toolgate({ settings: { ...settings, stream: false }, tools: [local], store });
    open.push(t);
    return t;
  }

  it('react: results that contradict earlier ones are signalled; at guard.maxConflicts a plan is made', async () => {
    const t = await toolgate({ strategy: 'react', guard: { maxRepeats: 10 } });
    const first = mock.requests.length;
    mock.enqueue(
      { toolCalls: [call('getQuote', { sym: 'X' }, 'q1')] },
      { toolCalls: [call('getQuote', { sym: 'X' }, 'q2')] },
      { toolCalls: [call('getQuote', { sym: 'X' }, 'q3')] },
      { text: JSON.stringify({ steps: [{ tool: 'getQuote', arguments: { sym: 'Y' } }] }) },
      { text: 'X is unreliable; Y is at 50.' },
    );
    const run = await t.run({ input: 'What does X trade at?' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const events = await t.store.readEvents(run.id);
    const signals = ofType(events, 'step_signal').map((e) => e.data);
    assert.deepEqual(
      signals.map((s) => [s.step, s.conflicts ?? 0]),
      [
        [1, 0],
        [2, 1],
        [3, 1],
        [4, 0],
      ],
    );
    assert.equal(signals[0]?.evidenceGained, 1);
    const [q1, q2] = ofType(events, 'tool_result').map((e) => e.data.toolCallId);
    assert.deepEqual(signals[1]?.conflicting, [{ tool: 'getQuote', toolCallId: q2, earlierCallId: q1 }]);
    assert.equal(signals[3]?.planCoverage, 1, "the plan's one step succeeded");
    const trips = ofType(events, 'guard_tripped').map((e) => e.data);
    assert.deepEqual(
      trips.map((g) => [g.code, g.action, g.limit, g.value]),
      [['conflicting_evidence', 'replan', 2, 2]],
    );
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf('plan_created') > types.indexOf('guard_tripped'), 'the plan follows the trip');
    const planPrompt = JSON.stringify(mock.requests[first + 3]?.body);
    assert.match(planPrompt, /The last plan did not work: 2 tool results contradicted earlier results/);
    assert.equal(run.output, 'X is unreliable; Y is at 50.');
  });

  it('plan: conflicting steps of one plan lead to plan_revised with the reason', async () => {
    const t = await toolgate({ strategy: 'plan', guard: { maxRepeats: 10 } });
    const x = { tool: 'getQuote', arguments: { sym: 'X' } };
    mock.enqueue(
      { text: JSON.stringify({ steps: [x, x, x] }) },
      { text: JSON.stringify({ steps: [{ tool: 'getQuote', arguments: { sym: 'Y' } }] }) },
      { text: '{"final_answer": "Y is at 50."}' },
    );
    const run = await t.run({ input: 'What does X trade at?' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const events = await t.store.readEvents(run.id);
    const [signal] = ofType(events, 'step_signal').map((e) => e.data);
    assert.equal(signal?.conflicts, 2);
    assert.equal(signal?.planCoverage, 1);
    const revised = ofType(events, 'plan_revised')[0]?.data;
    assert.match(revised?.reason ?? '', /2 tool results contradicted earlier results of the same call/);
    assert.equal(ofType(events, 'guard_tripped')[0]?.data.action, 'replan');
  });

  it('slow tools: the p95 of the run’s calls over guard.maxToolLatencyP95Ms degrades to a summary', async () => {
    const t = await toolgate({ strategy: 'react', guard: { maxToolLatencyP95Ms: 40, onBreach: 'fail' } });
    const first = mock.requests.length;
    mock.enqueue(
      { toolCalls: [0, 1, 2, 3, 4].map((n) => call('slowLookup', { ms: 80, n }, `s${n}`)) },
      { text: 'From what I found: 0 to 4.' },
    );
    const run = await t.run({ input: 'look them all up' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(run.output, 'From what I found: 0 to 4.');
    const events = await t.store.readEvents(run.id);
    const trip = ofType(events, 'guard_tripped')[0]?.data;
    assert.deepEqual([trip?.code, trip?.action, trip?.limit], ['tool_latency_p95', 'degrade', 40]);
    assert.ok((trip?.value ?? 0) >= 80);
    assert.equal(mock.requests[first + 1]?.body.tools, undefined, 'the summary is asked without tools');
  });

  it('reflect: the verdict’s confidence is on the reflection and in a step_signal', async () => {
    const t = await toolgate({ strategy: 'reflect' });
    mock.enqueue(
      // The feed fails: the failure triggers the reflection.
      { toolCalls: [call('brokenFeed')] },
      { text: JSON.stringify({ verdict: 'continue', reason: 'fine', confidence: 0.7 }) },
      { text: 'done' },
    );
    const run = await t.run({ input: 'quote Z' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const events = await t.store.readEvents(run.id);
    const reflection = ofType(events, 'reflection')[0]?.data;
    if (reflection === undefined) return assert.fail('no reflection: ' + events.map((e) => e.type).join(','));
    assert.equal(reflection.confidence, 0.7);
    assert.ok(ofType(events, 'step_signal').some((e) => e.data.verdictConfidence === 0.7));
  });
});
