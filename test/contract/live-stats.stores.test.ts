// Live statistics on SQLite and PostgreSQL: many runs (tenants, react/plan/auto, failures, tool calls, an approval
// asked and rejected) driven by a real Toolgate on a real store. The live snapshot equals a recomputation from every
// run's log; a new instance that refreshes from the store (a restart) gives the same snapshot; on PostgreSQL a second
// instance sees the first one's runs after its refresh.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import {
  ToolgateError,
  type Message,
  type ModelAdapter,
  type RunStore,
  type StatsSnapshot,
  type ToolSource,
} from '../../src/core/index.ts';
import { LiveStats } from '../../src/app/live-stats/live-stats.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { whenPostgres, withSchema } from './postgres-harness.ts';
import { recomputeStats } from '../support/recompute-stats.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-live-stats-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MODEL = 'mock:model';
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A read tool with varied latency, and a write tool the policy holds for a person. */
const tools: ToolSource = {
  name: 'px',
  listTools: async () => [
    {
      name: 'lookup',
      description: 'Looks a record up',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      origin: { kind: 'mcp', server: 'px', tool: 'lookup' },
    },
    {
      name: 'update',
      description: 'Changes a record',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: false, destructiveHint: true },
      origin: { kind: 'mcp', server: 'px', tool: 'update' },
    },
  ],
  callTool: async () => {
    await sleep(1 + Math.floor(Math.random() * 25));
    return { ok: true, content: [{ type: 'text', text: 'record 42: open' }] };
  },
  close: async () => undefined,
};

function textOf(message: Message | undefined): string {
  if (message === undefined || !('content' in message)) return '';
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

/** Answers by the request's first user message: fail…, lookup…, update…, plan (the plan prompt), else a text. */
const model: ModelAdapter = {
  id: MODEL,
  async generate(request) {
    await sleep(Math.floor(Math.random() * 15));
    const usage = { promptTokens: 100 + request.messages.length, completionTokens: 20, totalTokens: 0 };
    const finishReason = 'stop';
    const input = textOf(request.messages.find((m) => m.role === 'user'));
    const hasResult = request.messages.some((m) => m.role === 'tool');
    const last = textOf(request.messages.at(-1));
    if (input.startsWith('fail')) throw new ToolgateError('model_bad_request', 'the model refused the request');
    if (last.includes('write a plan'))
      return {
        text: JSON.stringify({ steps: [{ tool: 'lookup', arguments: {} }] }),
        toolCalls: [],
        usage,
        finishReason,
      };
    if (input.startsWith('plan') && hasResult)
      return { text: '{"final_answer": "done"}', toolCalls: [], usage, finishReason };
    if (!hasResult && (input.includes('lookup') || input.startsWith('update'))) {
      const name = input.startsWith('update') ? 'update' : 'lookup';
      return { text: '', toolCalls: [{ id: `c_${name}`, name, arguments: '{}' }], usage, finishReason: 'tool_calls' };
    }
    return { text: 'done', toolCalls: [], usage, finishReason };
  },
};

function toolgateOn(store: RunStore): Toolgate {
  const settings = resolveSettings(
    {
      prices: { [MODEL]: PRICE },
      tools: { 'px/update': { approval: 'required' } },
      stats: { windowMinutes: 60 },
    },
    {},
    {},
  );
  return new Toolgate({ settings: { ...settings, model: MODEL }, store, model, tools: [tools], toolRetry: false });
}

/** 45 runs of three tenants (and none), react, plan and auto, some failing, some calling tools, one rejected. */
async function driveRuns(toolgate: Toolgate): Promise<void> {
  const tenants = ['acme', 'globex', undefined];
  const kinds = [
    { strategy: 'react', input: 'lookup record 42' },
    { strategy: 'react', input: 'fail please' },
    { strategy: 'plan', input: 'plan the check of record 42' },
    { strategy: 'auto', input: 'hello there' },
    { strategy: 'auto', input: 'use lookup for record 7' },
  ];
  const runs: Promise<unknown>[] = [];
  for (let i = 0; i < 45; i++) {
    const kind = kinds[i % kinds.length];
    const tenantId = tenants[i % tenants.length];
    if (kind === undefined) continue;
    runs.push(toolgate.run({ ...kind, ...(tenantId === undefined ? {} : { tenantId }) }));
  }
  const results = await Promise.all(runs);
  assert.equal(results.length, 45);
  // One write held for a person and rejected.
  const held = await toolgate.run({ input: 'update record 42', strategy: 'react', tenantId: 'acme' });
  assert.equal(held.status, 'waiting_approval');
  const toolCallId = held.pendingApproval?.toolCallId ?? '';
  const decided = await toolgate.submitInput(held.id, { type: 'approval', toolCallId, decision: 'reject' });
  assert.equal(decided.status, 'completed');
}

/** Counts exactly; percentiles within 2%. */
function assertSameStats(got: StatsSnapshot, want: StatsSnapshot, what: string): void {
  const strip = (snapshot: StatsSnapshot) =>
    snapshot.rows.map(({ modelLatencyMs, toolLatencyMs, series, ...row }) => ({
      ...row,
      modelLatencyMs: modelLatencyMs.count,
      toolLatencyMs: toolLatencyMs.count,
      completed: series.completed.reduce((a, b) => a + b, 0),
    }));
  assert.deepEqual(strip(got), strip(want), what);
  for (const [i, row] of want.rows.entries()) {
    const mine = got.rows[i];
    for (const which of ['modelLatencyMs', 'toolLatencyMs'] as const) {
      for (const q of ['p50', 'p95', 'max'] as const) {
        const exact = row[which][q] ?? 0;
        const approx = mine?.[which][q] ?? 0;
        assert.ok(Math.abs(approx - exact) <= exact * 0.02 + 0.01, `${what}: ${which}.${q} ${approx} vs ${exact}`);
      }
    }
  }
}

async function checkStore(store: RunStore, second?: RunStore): Promise<void> {
  const toolgate = toolgateOn(store);
  await driveRuns(toolgate);
  await toolgate.stats.idle();
  const live = toolgate.stats.snapshot();
  const recomputed = await recomputeStats(store);
  assert.ok(live.totals.runs.started >= 46, JSON.stringify(live.totals.runs));
  assert.ok(live.totals.runs.failed >= 9 && live.totals.approvals.rejected === 1, JSON.stringify(live.totals));
  assert.ok(live.rows.some((r) => r.intent === 'answer') && live.rows.some((r) => r.strategy === 'plan'));
  assert.ok(live.totals.toolLatencyMs.count >= 20 && live.totals.costUsd > 0);
  assertSameStats(live, recomputed, 'live vs the log');

  const restarted = new LiveStats({ store });
  await restarted.refresh();
  assertSameStats(restarted.snapshot(), recomputed, 'after a restart');

  if (second !== undefined) {
    const other = new LiveStats({ store: second });
    await other.refresh();
    const more = toolgateOn(store);
    await more.run({ input: 'lookup record 9', strategy: 'react', tenantId: 'initech' });
    await other.refresh();
    const seen = other.snapshot({ tenant: 'initech' });
    assert.equal(seen.totals.runs.completed, 1, 'instance 2 sees a run of instance 1 after its refresh');
    assertSameStats(other.snapshot(), await recomputeStats(store), 'instance 2');
  }
}

describe('live statistics on SQLite', () => {
  it('equal a recomputation from the log, and again after a restart', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'runs.db') });
    try {
      await checkStore(store);
    } finally {
      await store.close();
    }
  });
});

await whenPostgres('live statistics on PostgreSQL', () => {
  describe('live statistics on PostgreSQL', () => {
    it('equal a recomputation from the log, after a restart, and on a second instance', () =>
      withSchema(async (open) => {
        const first = await open();
        const second = await open();
        await checkStore(first, second);
      }));
  });
});
