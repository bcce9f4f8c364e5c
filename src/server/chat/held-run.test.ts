import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../core/events.ts';
import type { Caller } from '../../core/ports/run-service.ts';
import type { Run } from '../../core/runs.ts';
import { findHeldRun } from './held-run.ts';
import { DEFAULT_APPROVAL_MESSAGE, holdMessage } from './hold-message.ts';

const HELD = 'run_0123456789abcdef01234567';
const OTHER = 'run_fedcba9876543210fedcba98';
const PLAIN = 'run_aaaaaaaaaaaaaaaaaaaaaaaa';
const time = '2026-01-01T00:00:00.000Z';

function runOf(id: string, tenantId: string, protocol?: string): Run {
  return {
    id,
    status: 'waiting_approval',
    input: 'buy',
    model: 'openai:m',
    createdAt: time,
    updatedAt: time,
    tenantId,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    steps: 1,
    lastEventId: 5,
    ...(protocol === undefined ? {} : { metadata: { protocol } }),
  };
}

function approval(runId: string, id: number, name: string): RunEvent {
  return {
    id,
    runId,
    time,
    type: 'approval_required',
    data: { step: 1, toolCallId: `call_${id}`, name, arguments: {}, effect: 'write', reason: 'policy' },
  };
}

const runs = [
  runOf(HELD, 'acme', 'chat.completions'),
  runOf(OTHER, 'globex', 'chat.completions'),
  runOf(PLAIN, 'acme'),
];
const logs = new Map<string, RunEvent[]>([
  [HELD, [approval(HELD, 3, 'placeOrder'), approval(HELD, 8, 'cancelOrder')]],
  [OTHER, [approval(OTHER, 3, 'placeOrder')]],
  [PLAIN, [approval(PLAIN, 3, 'placeOrder')]],
]);
const service = {
  getRun: async (caller: Caller, runId: string) =>
    runs.find((run) => run.id === runId && run.tenantId === caller.tenantId),
};
const store = {
  readEvents: async (runId: string, options: { after?: number } = {}) =>
    (logs.get(runId) ?? []).filter((event) => event.id > (options.after ?? 0)),
};

const acme = { tenantId: 'acme' };
const held = (runId: string, tool: string) => holdMessage(DEFAULT_APPROVAL_MESSAGE, { tool, runId, reason: 'policy' });

async function find(message: Parameters<typeof findHeldRun>[0]['message'], caller: Caller = acme) {
  const found = await findHeldRun({ service, store, caller, message, template: DEFAULT_APPROVAL_MESSAGE });
  return found === undefined ? undefined : { runId: found.run.id, eventId: found.approval.id };
}

describe('findHeldRun: which conversation continues a held run', () => {
  it('finds the run whose hold message the last assistant message is, and the approval it was about', async () => {
    assert.deepEqual(await find({ text: held(HELD, 'placeOrder') }), { runId: HELD, eventId: 3 });
    assert.deepEqual(await find({ text: `Sure.\n\n${held(HELD, 'cancelOrder')}` }), { runId: HELD, eventId: 8 });
  });

  it('finds the run named by the toolgate field (the latest approval, or the one it names)', async () => {
    assert.deepEqual(await find({ text: 'anything', runId: HELD }), { runId: HELD, eventId: 8 });
    assert.deepEqual(await find({ text: '', runId: HELD, eventId: 3 }), { runId: HELD, eventId: 3 });
  });

  it('does not capture a message that only quotes a run id, a new conversation, or a run of another kind', async () => {
    assert.equal(await find(undefined), undefined, 'no assistant message yet');
    assert.equal(await find({ text: `Run ${HELD} was about placeOrder.` }), undefined, 'a run id in an answer');
    assert.equal(await find({ text: held(HELD, 'getOrderBook') }), undefined, 'no such approval in the run');
    assert.equal(await find({ text: held(PLAIN, 'placeOrder') }), undefined, 'a run not started by this route');
    assert.equal(await find({ text: 'Hello! How can I help?' }), undefined);
  });

  it('never finds another tenant’s run', async () => {
    assert.equal(await find({ text: held(OTHER, 'placeOrder') }), undefined);
    assert.equal(await find({ text: '', runId: OTHER }), undefined);
    assert.deepEqual(await find({ text: held(OTHER, 'placeOrder') }, { tenantId: 'globex' }), {
      runId: OTHER,
      eventId: 3,
    });
  });
});
