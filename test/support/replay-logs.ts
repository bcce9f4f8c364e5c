// Hand-written run logs for the replay's unit tests: drafts appended to a memory store, so ids, times and the run's
// projection are what a real store makes of them.
import assert from 'node:assert/strict';
import {
  draft,
  type EventDraft,
  type JsonObject,
  type RunEvent,
  type RunEventDataMap,
  type RunPatch,
} from '../../src/core/index.ts';
import type { RecordedRun } from '../../src/app/replay/recorded-run.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';

export async function handLog(drafts: readonly EventDraft[], patch: RunPatch = {}): Promise<RecordedRun> {
  const store = new MemoryRunStore();
  const run = await store.createRun({ input: 'buy for alice', model: 'fake:model' });
  await store.append(run.id, drafts, patch);
  const stored = await store.getRun(run.id);
  assert.ok(stored !== undefined);
  const events: RunEvent[] = await store.readEvents(run.id);
  return { run: stored, events };
}

/** A model turn with these calls (each `{id, name, arguments}` as the parser recorded them). */
export function turn(
  step: number,
  calls: { id: string; name: string; args: JsonObject | string }[],
  text = '',
): EventDraft {
  const recorded = calls.map((c) => ({
    id: c.id,
    name: c.name,
    arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args),
  }));
  return draft('assistant_message', {
    step,
    text,
    toolCalls: recorded,
    finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
    latencyMs: 1,
    ...(recorded.length > 0 ? { calls: recorded } : {}),
  });
}

type Decision = RunEventDataMap['gate_decision'];

export function decision(
  call: { step: number; id: string; name: string },
  kind: Decision['decision'],
  extra: Partial<Decision> = {},
): EventDraft {
  return draft('gate_decision', {
    step: call.step,
    toolCallId: call.id,
    name: call.name,
    effect: 'write',
    decision: kind,
    normalisations: [],
    injected: [],
    ...extra,
  });
}

/** A call that ran: its tool_call and tool_result. */
export function ran(call: { step: number; id: string; name: string }, args: JsonObject, text = 'ok'): EventDraft[] {
  return [
    draft('tool_call', { step: call.step, toolCallId: call.id, name: call.name, arguments: args }),
    draft('tool_result', {
      step: call.step,
      toolCallId: call.id,
      name: call.name,
      ok: true,
      content: [{ type: 'text', text }],
      latencyMs: 1,
    }),
  ];
}

export function refusedResult(
  call: { step: number; id: string; name: string },
  code: 'denied' | 'rejected',
): EventDraft {
  return draft('tool_result', {
    step: call.step,
    toolCallId: call.id,
    name: call.name,
    ok: false,
    content: [{ type: 'text', text: code }],
    error: { code, message: code },
    latencyMs: 1,
  });
}

export function completed(output: string): EventDraft {
  return draft('run_completed', { output, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, steps: 2 });
}
