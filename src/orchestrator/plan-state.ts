import type { PlanStep, RawToolCall, RunEventDataMap } from '../core/index.ts';
import type { ConversationState } from './conversation-state.ts';
import { countCalls } from './run-counters.ts';

/** The plan being run, from plan_created / plan_revised and the results of its calls. */
export interface PlanState {
  planId: string;
  step: number;
  revision: number;
  steps: PlanStep[];
  approval: 'plan' | 'step' | 'none';
  finalAnswer?: string | undefined;
  callIds: string[];
  /** `open` while its calls run; `done` when all succeeded; `failed` when one did not. */
  status: 'open' | 'done' | 'failed';
  /** What went wrong in its failed steps ("name: error"), first the step that failed. */
  failures: string[];
}

/** A new plan: its tool steps become the calls of one turn, shown to the model as its own. */
export function applyPlan(state: ConversationState, d: RunEventDataMap['plan_created'], eventId: number, revised: boolean): void {
  if (revised) state.replans++;
  state.pendingReplan = undefined;
  const calls: RawToolCall[] = d.steps.flatMap((s) =>
    // The model's own arguments: injected values never reach the model, redacted ones never reach a tool.
    s.kind === 'tool' && s.toolCallId !== undefined && s.name !== undefined ? [{ id: s.toolCallId, name: s.name, arguments: s.raw ?? JSON.stringify(s.arguments ?? {}) }] : [],
  );
  state.plan = {
    planId: d.planId,
    step: d.step,
    revision: revised ? state.replans : 0,
    steps: d.steps,
    approval: d.approval,
    finalAnswer: d.finalAnswer,
    callIds: calls.map((c) => c.id),
    status: calls.length === 0 ? 'done' : 'open',
    failures: [],
  };
  if (calls.length === 0) return;
  countCalls(state, calls, eventId);
  const mode = state.toolMode ?? 'native';
  if (mode === 'prompted') {
    const text = calls.map((c) => `<tool_call>{"name": ${JSON.stringify(c.name)}, "arguments": ${c.arguments}}</tool_call>`).join('\n');
    state.messages.push({ role: 'assistant', content: text });
  } else {
    state.messages.push({ role: 'assistant', content: '', toolCalls: calls });
  }
  state.turn = { step: d.step, mode, calls, results: new Map(), started: new Set() };
}
