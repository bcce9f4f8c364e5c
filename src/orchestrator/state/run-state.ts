import {
  ACTIVE_RUN_STATUSES,
  addUsage,
  type ParsedToolCall,
  type PlanEventData,
  type RawToolCall,
  type RunEvent,
  type RunEventDataMap,
  type ToolResult,
} from '../../core/index.ts';
import { UNREADABLE_ARGUMENTS, type ApprovalDecision, type ConversationState } from './run-state-types.ts';
import { applySignal, noteResult } from './step-signals.ts';
import { addUserMessage, closeTurn, openTurn, takeCall, wireIds } from './turns.ts';

export { UNREADABLE_ARGUMENTS, activeTime, callKey, emptyConversation } from './run-state-types.ts';
export type { ApprovalDecision, ConversationState, OpenTurn, PlanState } from './run-state-types.ts';

/**
 * The one reducer of a run: applies events (in log order) to its state. Each
 * event once: history and live events may overlap at the seam.
 */
export function applyEvents(state: ConversationState, events: readonly RunEvent[]): ConversationState {
  for (const event of events) {
    if (event.id <= state.lastEventId) continue;
    state.lastEventId = event.id;
    applyEvent(state, event);
  }
  return state;
}

function applyEvent(state: ConversationState, event: RunEvent): void {
  switch (event.type) {
    case 'run_started':
      state.started = true;
      if (event.data.toolMode === 'prompted') state.toolMode = 'prompted';
      state.activeSince ??= Date.parse(event.time);
      break;
    case 'run_status':
      applyStatus(state, event.data, Date.parse(event.time));
      break;
    case 'user_message':
      // A conversation given whole by the caller may end with tool results: its run adds no (empty) user message.
      if (event.data.text !== '') addUserMessage(state, event.data.text);
      break;
    case 'assistant_message':
      applyAnswer(state, event.data, event.id);
      break;
    case 'parse_retry':
      // A side call's feedback went with that call only.
      if (!state.sideSteps.has(event.data.step)) state.messages.push({ role: 'user', content: event.data.feedback });
      break;
    case 'plan_created':
    case 'plan_revised':
      applyPlan(state, event.data, { eventId: event.id, revised: event.type === 'plan_revised' });
      break;
    case 'reflection': {
      state.reflections++;
      state.reflectTrigger = undefined;
      const d = event.data;
      if (d.verdict === 'replan') state.pendingReplan = d.reason;
      if (d.verdict === 'continue' || d.verdict === 'replan')
        addUserMessage(state, `Reflection on what happened so far (${d.verdict}): ${d.reason}`);
      break;
    }
    case 'tool_mode_changed':
      // The mode the next turn is asked in, also for a run resumed before that turn.
      state.toolMode = event.data.to;
      break;
    case 'intent_routed':
      state.route = event.data.route;
      break;
    case 'run_forked':
      // The fork's own toolMode wins over the mode its copied turns were asked in: the next turn reads the settings.
      if (event.data.settings?.['toolMode'] !== undefined) state.toolMode = undefined;
      break;
    case 'guard_tripped':
      if (event.data.action === 'warn') {
        state.loopWarnedAt = event.id;
        addUserMessage(state, event.data.message);
      } else if (event.data.action === 'reflect') {
        state.failuresReflected = true;
        state.consecutiveFailures = 0;
      } else if (event.data.action === 'replan') {
        // The run plans again from the evidence (react, reflect: a plan; plan: plan_revised) before its next turn.
        state.pendingReplan = event.data.message;
        state.conflictsReplanned = true;
        state.conflictsSincePlan = 0;
      }
      break;
    case 'step_signal':
      applySignal(state, event.data);
      break;
    case 'todo_updated':
      state.todos = event.data.todos;
      if (event.data.fromThread !== true) state.roundsSinceTodo = 0;
      break;
    case 'reminder_injected': {
      state.roundsSinceTodo = 0;
      const index = state.lastResultsIndex;
      const message = index === undefined ? undefined : state.messages[index];
      if (message !== undefined && index !== undefined)
        state.messages[index] = { ...message, content: `${event.data.text}\n${message.content}` };
      break;
    }
    case 'tool_call':
      state.toolCalls++;
      // A decision is consumed by the call it allowed: if the process stops
      // before the result, the outcome is unknown and a person decides again.
      state.turn?.started.add(event.data.toolCallId);
      state.decisions.delete(event.data.toolCallId);
      state.asked.delete(event.data.toolCallId);
      state.awaiting.delete(event.data.toolCallId);
      break;
    case 'gate_decision':
      if (event.data.decision === 'approval_required') state.awaiting.add(event.data.toolCallId);
      if (
        event.data.decision === 'invalid' &&
        state.turn !== undefined &&
        event.data.issues?.some((i) => i.code === UNREADABLE_ARGUMENTS) === true
      ) {
        state.turn.unreadable = true;
      }
      break;
    case 'tool_result':
      applyResult(state, event.data);
      break;
    case 'input_received': {
      const input = event.data.input;
      if (input.type !== 'approval') break;
      const decision: ApprovalDecision = { decision: input.decision };
      if (input.arguments !== undefined) decision.arguments = input.arguments;
      if (input.reason !== undefined) decision.reason = input.reason;
      if (input.result !== undefined) decision.result = input.result;
      if (input.userId !== undefined) decision.userId = input.userId;
      state.decisions.set(input.toolCallId, decision);
      break;
    }
    case 'approval_required':
      state.asked.add(event.data.toolCallId);
      break;
    case 'cancel_requested':
      state.cancelRequested ??= event.data.reason;
      break;
    case 'run_completed':
    case 'run_failed':
    case 'run_cancelled':
      state.terminal = true;
      break;
    default:
      break;
  }
}

/** A status change; active time stops while the run waits (for a person, or queued). */
function applyStatus(state: ConversationState, d: RunEventDataMap['run_status'], at: number): void {
  const wasActive = ACTIVE_RUN_STATUSES.has(d.from) && d.from !== 'queued';
  const isActive = ACTIVE_RUN_STATUSES.has(d.to) && d.to !== 'queued';
  if (wasActive && !isActive && state.activeSince !== undefined) {
    state.activeMs += Math.max(0, at - state.activeSince);
    state.activeSince = undefined;
  } else if (!wasActive && isActive) {
    state.activeSince = at;
  }
  state.status = d.to;
}

/** A model's answer: its message in the conversation and, with calls, the turn that runs them. */
function applyAnswer(state: ConversationState, d: RunEventDataMap['assistant_message'], eventId: number): void {
  state.modelCalls++;
  state.usage = addUsage(state.usage, d.usage);
  if (d.purpose !== undefined) {
    // A strategy's side call: counted (steps, usage, model calls), not a turn of the conversation.
    state.sideSteps.add(d.step);
    state.step = d.step;
    state.attempts = 0;
    return;
  }
  const mode = d.toolMode ?? 'native';
  state.toolMode = mode;
  if (mode === 'native' && d.diagnostics?.some((x) => x.code === 'text_call_ignored') === true)
    state.textCallsInNative++;
  if (d.step !== state.step) state.attempts = 0;
  state.step = d.step;
  state.attempts = d.attempt ?? state.attempts + 1;
  const recorded = d.calls ?? d.toolCalls;
  const truncated = d.finishReason === 'length';
  const calls = recorded.map((call) => takeCall(state, call, truncated));
  state.handover.clear();
  if (mode === 'prompted') {
    state.messages.push({ role: 'assistant', content: d.text });
  } else {
    const ids = wireIds(recorded);
    const wire = recorded.map((call, i): RawToolCall => ({
      id: ids[i] ?? call.id,
      name: call.name,
      arguments: call.arguments,
    }));
    state.messages.push({
      role: 'assistant',
      content: d.content ?? d.text,
      ...(wire.length > 0 ? { toolCalls: wire } : {}),
      ...(d.providerData === undefined ? {} : { providerData: d.providerData }),
    });
  }
  openTurn(state, { step: d.step, mode, calls, truncated, shown: d.content ?? d.text }, eventId);
}

/** A new plan: its tool steps become the calls of one turn, shown to the model as its own. */
function applyPlan(state: ConversationState, d: PlanEventData, event: { eventId: number; revised: boolean }): void {
  if (event.revised) state.replans++;
  state.pendingReplan = undefined;
  state.conflictsSincePlan = 0;
  // The model's own arguments: injected values never reach the model, redacted ones never reach a tool.
  const steps = d.steps.flatMap((s) =>
    s.kind === 'tool' && s.toolCallId !== undefined && s.name !== undefined
      ? [
          {
            recorded: { id: s.toolCallId, name: s.name, arguments: s.raw ?? JSON.stringify(s.arguments ?? {}) },
            raw: s.raw,
            input: s.arguments ?? {},
          },
        ]
      : [],
  );
  const recorded = steps.map((s) => s.recorded);
  const calls = steps.map((s): ParsedToolCall =>
    s.raw === undefined
      ? { id: s.recorded.id, name: s.recorded.name, input: s.input }
      : takeCall(state, s.recorded, false),
  );
  state.handover.clear();
  state.plan = {
    planId: d.planId,
    step: d.step,
    revision: event.revised ? state.replans : 0,
    steps: d.steps,
    approval: d.approval,
    finalAnswer: d.finalAnswer,
    callIds: calls.map((c) => c.id),
    status: calls.length === 0 ? 'done' : 'open',
    failures: [],
  };
  if (calls.length === 0) return;
  const mode = state.toolMode ?? 'native';
  if (mode === 'prompted') {
    const text = recorded
      .map((c) => `<tool_call>{"name": ${JSON.stringify(c.name)}, "arguments": ${c.arguments}}</tool_call>`)
      .join('\n');
    state.messages.push({ role: 'assistant', content: text });
  } else {
    state.messages.push({ role: 'assistant', content: '', toolCalls: recorded });
  }
  openTurn(state, { step: d.step, mode, calls }, event.eventId);
}

/** A call's result: the turn closes when every call has one. */
function applyResult(state: ConversationState, d: RunEventDataMap['tool_result']): void {
  const turn = state.turn;
  if (turn === undefined) return;
  if (d.untrusted === true) state.untrusted.push({ toolCallId: d.toolCallId, name: d.name, step: d.step });
  state.consecutiveFailures = !d.ok || d.slow === true ? state.consecutiveFailures + 1 : 0;
  if (d.slow === true) turn.slow = true;
  if (turn.started.has(d.toolCallId) && d.dryRun !== true && d.markedDone !== true)
    state.toolLatencies.push(d.latencyMs);
  noteResult(state, turn, d);
  const plan = state.plan;
  if (!d.ok && plan !== undefined && plan.status !== 'done' && plan.callIds.includes(d.toolCallId)) {
    plan.status = 'failed';
    if (d.error?.code !== 'skipped') plan.failures.push(`${d.name}: ${d.error?.message ?? 'failed'}`.slice(0, 500));
  }
  const result: ToolResult = { ok: d.ok, content: d.content };
  if (d.structuredContent !== undefined) result.structuredContent = d.structuredContent;
  if (d.error !== undefined) result.error = d.error;
  turn.results.set(d.toolCallId, result);
  if (turn.calls.every((c) => turn.results.has(c.id))) closeTurn(state, turn);
}
