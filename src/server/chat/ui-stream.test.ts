import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asSchema, readUIMessageStream, uiMessageChunkSchema, type UIMessage } from 'ai';
import { draft, type EventDraft, type RunEvent } from '../../core/events.ts';
import type { UiChunk } from './ui-chunks.ts';
import { UiStreamMapper } from './ui-stream.ts';

const RUN = 'run_1';

/** Numbers drafts as the store would. */
function log(...drafts: EventDraft[]): RunEvent[] {
  // A draft is one member of the union; numbering it keeps it that member (the store does the same).
  return drafts.map((d, i) => ({ ...d, id: i + 1, runId: RUN, time: '2026-01-01T00:00:00.000Z' }) as RunEvent);
}

function chunksOf(events: readonly RunEvent[], mapper = new UiStreamMapper()): UiChunk[] {
  return events.flatMap((event) => mapper.push(event));
}

/** The message the AI SDK builds from the chunks (its own reader), after a `start`. */
async function messageOf(chunks: readonly UiChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of [{ type: 'start', messageId: RUN }, ...chunks]) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, terminateOnError: true, ...(message ? { message } : {}) }))
    last = m;
  assert.ok(last);
  return last;
}

const types = (chunks: readonly UiChunk[]): string[] => chunks.map((c) => c.type);
const turn = (step: number, text: string, extra: Partial<{ content: string; reasoning: string }> = {}) =>
  draft('assistant_message', { step, text, toolCalls: [], finishReason: 'stop', latencyMs: 1, ...extra });
const calls = { usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, steps: 2 };

const ORDER_CALL = [
  draft('assistant_delta', { step: 1, text: 'Placing ' }),
  draft('assistant_delta', { step: 1, text: 'it.' }),
  draft('assistant_message', {
    step: 1,
    text: 'Placing it.',
    toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: '{"price":"80"}' }],
    calls: [{ id: 'call_a', name: 'placeOrder', arguments: '{"price":80}', providerId: 'o1' }],
    finishReason: 'tool_calls',
    latencyMs: 1,
  }),
  draft('gate_decision', {
    step: 1,
    toolCallId: 'call_a',
    name: 'placeOrder',
    effect: 'write',
    decision: 'approval_required',
    normalisations: [],
    injected: [],
  }),
  draft('run_status', { from: 'running', to: 'waiting_approval' }),
  draft('approval_required', {
    step: 1,
    toolCallId: 'call_a',
    name: 'placeOrder',
    arguments: { price: 80 },
    effect: 'write',
    reason: 'policy',
  }),
];
const APPROVED = [
  draft('input_received', { input: { type: 'approval', toolCallId: 'call_a', decision: 'approve' } }),
  draft('run_status', { from: 'waiting_approval', to: 'running' }),
  draft('gate_decision', {
    step: 1,
    toolCallId: 'call_a',
    name: 'placeOrder',
    effect: 'write',
    decision: 'allowed',
    normalisations: [],
    injected: [],
  }),
  draft('tool_call', { step: 1, toolCallId: 'call_a', name: 'placeOrder', arguments: { price: 80 } }),
  draft('tool_result', {
    step: 1,
    toolCallId: 'call_a',
    name: 'placeOrder',
    ok: true,
    content: [{ type: 'text', text: 'placed' }],
    structuredContent: { orderId: 'o-1' },
    latencyMs: 1,
  }),
  draft('assistant_delta', { step: 2, text: 'Done.' }),
  turn(2, 'Done.'),
  draft('run_completed', { output: 'Done.', ...calls }),
];

describe('UiStreamMapper', () => {
  it('a run with a held write: the same chunks every time, each one valid for the AI SDK', async () => {
    const events = log(...ORDER_CALL, ...APPROVED);
    const chunks = chunksOf(events);
    assert.deepEqual(chunksOf(events), chunks, 'pure: the same events give the same chunks');
    assert.deepEqual(types(chunks), [
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'tool-input-available',
      'tool-approval-request',
      'tool-approval-response',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    const schema = asSchema(uiMessageChunkSchema);
    for (const chunk of chunks) {
      const checked = await schema.validate?.(chunk);
      assert.equal(checked?.success, true, `${JSON.stringify(chunk)} is a chunk the AI SDK reads`);
    }
    const input = chunks.find((c) => c.type === 'tool-input-available');
    assert.deepEqual(input, {
      type: 'tool-input-available',
      toolCallId: 'call_a',
      toolName: 'placeOrder',
      input: { price: '80' },
      dynamic: true,
      providerExecuted: true,
      toolMetadata: { effect: 'write', decision: 'approval_required', normalisedInput: { price: 80 } },
    });
    assert.deepEqual(
      chunks.find((c) => c.type === 'tool-approval-request'),
      {
        type: 'tool-approval-request',
        approvalId: 'run_1.call_a',
        toolCallId: 'call_a',
        reason: 'policy',
      },
    );
    const output = chunks.find((c) => c.type === 'tool-output-available');
    assert.equal(output?.type === 'tool-output-available' ? output.toolMetadata.decision : '', 'allowed');
  });

  it('pauses at the approval, and the decision continues the same message without doubling a part', async () => {
    const held = log(...ORDER_CALL);
    const live = new UiStreamMapper();
    const first = [...chunksOf(held, live), ...live.pause('tool-calls')];
    assert.deepEqual(types(first).slice(-3), ['tool-approval-request', 'finish-step', 'finish']);
    assert.deepEqual(first.at(-1), { type: 'finish', finishReason: 'tool-calls' });
    const waiting = await messageOf(first);
    const part = waiting.parts.find((p) => p.type === 'dynamic-tool');
    assert.equal(part?.state, 'approval-requested');

    // The continuation: every event fed again, the chunks of those after the approval request sent.
    const all = log(...ORDER_CALL, ...APPROVED);
    const mapper = new UiStreamMapper();
    const rest = all.flatMap((event) => {
      const chunks = mapper.push(event);
      return event.id > held.length ? chunks : [];
    });
    const responded: UIMessage = {
      ...waiting,
      parts: waiting.parts.map((p) =>
        p.type === 'dynamic-tool' && p.state === 'approval-requested'
          ? { ...p, state: 'approval-responded', approval: { id: p.approval.id, approved: true } }
          : p,
      ),
    };
    const done = await messageOf(rest, responded);
    assert.deepEqual(
      done.parts.map((p) => (p.type === 'dynamic-tool' ? `tool:${p.state}` : p.type)),
      ['step-start', 'text', 'tool:output-available', 'step-start', 'text'],
    );
  });

  it('a rejected call is denied; a call the policy refuses is an error; a failed run says why', () => {
    const rejected = chunksOf(
      log(
        ...ORDER_CALL,
        draft('input_received', {
          input: { type: 'approval', toolCallId: 'call_a', decision: 'reject', reason: 'no' },
        }),
        draft('tool_result', {
          step: 1,
          toolCallId: 'call_a',
          name: 'placeOrder',
          ok: false,
          content: [],
          error: { code: 'rejected', message: 'rejected by a person: no' },
          latencyMs: 0,
        }),
        draft('run_failed', { error: { code: 'max_steps', message: 'out of steps' } }),
      ),
    );
    assert.deepEqual(
      rejected.filter((c) => c.type.startsWith('tool-approval-response') || c.type === 'tool-output-denied'),
      [
        { type: 'tool-approval-response', approvalId: 'run_1.call_a', approved: false, reason: 'no' },
        { type: 'tool-output-denied', toolCallId: 'call_a' },
      ],
    );
    assert.deepEqual(rejected.slice(-3), [
      { type: 'finish-step' },
      { type: 'error', errorText: 'max_steps: out of steps' },
      { type: 'finish', finishReason: 'error' },
    ]);

    const denied = chunksOf(
      log(
        draft('gate_decision', {
          step: 1,
          toolCallId: 'call_d',
          name: 'cancelOrder',
          effect: 'write',
          decision: 'denied',
          normalisations: [],
          injected: [],
        }),
        draft('tool_result', {
          step: 1,
          toolCallId: 'call_d',
          name: 'cancelOrder',
          ok: false,
          content: [{ type: 'text', text: 'denied by policy' }],
          error: { code: 'denied', message: 'denied by policy' },
          latencyMs: 0,
        }),
        draft('run_cancelled', { reason: 'enough' }),
      ),
    );
    assert.deepEqual(types(denied), [
      'start-step',
      'tool-input-available',
      'tool-output-error',
      'finish-step',
      'abort',
      'finish',
    ]);
    assert.equal(denied[2]?.type === 'tool-output-error' ? denied[2].errorText : '', 'denied: denied by policy');
    assert.deepEqual(denied.at(-1), { type: 'finish', finishReason: 'other' });
  });

  it('text the turn did not end with, and reasoning that came with the turn, are said again in order', async () => {
    const chunks = chunksOf(
      log(
        draft('assistant_delta', { step: 1, text: 'Hello wor' }),
        turn(1, 'Hello world <call/>', { content: 'Hello world!', reasoning: 'think first' }),
        draft('assistant_delta', { step: 2, text: 'Fine ' }),
        turn(2, 'Fine, thanks', { content: 'Fine, thanks' }),
        draft('run_completed', { output: 'Fine, thanks', ...calls }),
      ),
    );
    assert.deepEqual(types(chunks).slice(0, 8), [
      'start-step',
      'text-start',
      'text-delta',
      'reset-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
    ]);
    const message = await messageOf(chunks);
    assert.deepEqual(
      message.parts.map((p) => (p.type === 'text' || p.type === 'reasoning' ? `${p.type}:${p.text}` : p.type)),
      ['step-start', 'reasoning:think first', 'text:Hello world!', 'step-start', 'text:Fine, thanks'],
    );
  });

  it('a streamed prefix gets the rest of the turn; a retried turn loses its try; side calls send nothing', async () => {
    const chunks = chunksOf(
      log(
        turn(1, '{"steps": []}', {}),
        draft('assistant_message', {
          step: 1,
          text: '{"steps": []}',
          toolCalls: [],
          finishReason: 'stop',
          latencyMs: 1,
          purpose: 'plan',
        }),
        draft('assistant_delta', { step: 2, text: 'Let me ' }),
        turn(2, 'Let me look.'),
        draft('parse_retry', { step: 2, attempt: 1, maxAttempts: 3, diagnostics: [], feedback: 'call it properly' }),
        draft('assistant_delta', { step: 2, text: 'Answer' }),
        turn(2, 'Answer.'),
        draft('run_completed', { output: 'Answer.', ...calls }),
      ),
    );
    const message = await messageOf(chunks);
    assert.deepEqual(
      message.parts.map((p) => (p.type === 'text' ? p.text : p.type)),
      ['step-start', '{"steps": []}', 'step-start', 'Answer.'],
    );
    assert.ok(
      chunks.some((c) => c.type === 'text-delta' && c.delta === 'look.'),
      'the rest of a streamed prefix',
    );
    assert.equal(chunks.filter((c) => c.type === 'reset-step').length, 1);
  });

  it('a whole plan waiting for a decision is a "plan" part, answered by the decision', () => {
    const chunks = chunksOf(
      log(
        draft('approval_required', {
          step: 1,
          toolCallId: 'plan_1',
          name: 'plan',
          arguments: { steps: [{ tool: 'placeOrder' }] },
          effect: 'write',
          reason: 'policy',
          kind: 'plan',
        }),
        draft('input_received', { input: { type: 'approval', toolCallId: 'plan_1', decision: 'approve' } }),
      ),
    );
    assert.deepEqual(types(chunks), [
      'start-step',
      'tool-input-available',
      'tool-approval-request',
      'tool-approval-response',
      'tool-output-available',
    ]);
    const part = chunks[1];
    assert.equal(part?.type === 'tool-input-available' ? part.toolName : '', 'plan');
    assert.deepEqual(part?.type === 'tool-input-available' ? part.input : '', { steps: [{ tool: 'placeOrder' }] });
  });
});
