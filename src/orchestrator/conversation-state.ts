import {
  ACTIVE_RUN_STATUSES,
  ZERO_USAGE,
  addUsage,
  renderToolResult,
  type JsonObject,
  type JsonValue,
  type Message,
  type Provenance,
  type RawToolCall,
  type RunEventDataMap,
  type TodoItem,
  type RunEvent,
  type RunStatus,
  type ToolResult,
  type Usage,
} from '../core/index.ts';
import { applyPlan, type PlanState } from './plan-state.ts';
import { countCalls } from './run-counters.ts';

/** The gate_decision issue code of a call whose arguments are not JSON at all (see prepareCall). */
export const UNREADABLE_ARGUMENTS = 'not_json';

export interface ApprovalDecision {
  decision: 'approve' | 'reject' | 'edit' | 'mark_done';
  arguments?: JsonObject;
  reason?: string;
  /** With `mark_done`: what the person observed. */
  result?: JsonValue;
  userId?: string;
}

/** A model turn whose tool calls have not all produced results yet. */
export interface OpenTurn {
  step: number;
  mode: 'native' | 'prompted';
  calls: RawToolCall[];
  results: Map<string, ToolResult>;
  /** Calls whose tool_call event was committed (the tool may have been reached). */
  started: Set<string>;
  /** The model hit its token limit in this turn. */
  truncated?: boolean;
  /** Some call's arguments could not be read as JSON at all (native calls; text calls are retried within the step). */
  unreadable?: boolean;
  /** Some result was slower than the guard's maxToolLatencyMs. */
  slow?: boolean;
}

/**
 * A run's conversation and loop position, derived from its event log only —
 * the same function serves a live run (fed the events it appends) and a run
 * recovered after a restart (fed its whole log), so both see one truth.
 */
export interface ConversationState {
  started: boolean;
  status: RunStatus;
  terminal: boolean;
  /** The conversation after the system prompt and thread history. */
  messages: Message[];
  step: number;
  usage: Usage;
  toolMode: 'native' | 'prompted' | undefined;
  /** Replies in native mode whose call, written as text after prose, was not run (`text_call_ignored`): see text-call-retry.ts. */
  textCallsInNative: number;
  turn: OpenTurn | undefined;
  /** Parse attempts made in the current step. */
  attempts: number;
  decisions: Map<string, ApprovalDecision>;
  /** Calls for which approval_required was appended. */
  asked: Set<string>;
  /** Calls the gate held for approval (gate_decision approval_required). */
  awaiting: Set<string>;
  lastEventId: number;
  /** User messages that arrived while a turn was open: they join after its results. */
  deferred: Message[];
  /** Untrusted tool outputs recorded in the run so far, in log order. */
  untrusted: Provenance[];
  /** Closed turns in a row with a call whose arguments could not be read: capped by parseRetries. */
  unusableTurns: number;
  /** A client asked to cancel the run (cancel_requested): the reason. */
  cancelRequested: string | undefined;
  /** Model calls recorded in the run (side calls included): with the history's, the next request's callIndex. */
  modelCalls: number;
  /** Steps that were side calls of a strategy (plan, reflect, route): not turns of the conversation. */
  sideSteps: Set<number>;
  /** Calls that reached their tool (tool_call events). */
  toolCalls: number;
  /** Tool results in a row that failed or were slow. */
  consecutiveFailures: number;
  /** The guard already asked for a reflection on failures (the next breach stops the run). */
  failuresReflected: boolean;
  /** Calls asked for, by tool and arguments: how often, and the id of the last event that asked. */
  callRepeats: Map<string, { name: string; count: number; lastEventId: number }>;
  /** The id of the guard_tripped event that warned the model of a loop. */
  loopWarnedAt: number | undefined;
  /** Active time before `activeSince` (waiting for a person does not count). */
  activeMs: number;
  activeSince: number | undefined;
  plan: PlanState | undefined;
  /** plan_revised events so far. */
  replans: number;
  /** A reflection chose `replan`: its reason, until the new plan is made. */
  pendingReplan: string | undefined;
  route: RunEventDataMap['intent_routed']['route'] | undefined;
  reflections: number;
  todos: TodoItem[];
  /** Closed tool rounds since the last todo_write (or reminder). */
  roundsSinceTodo: number;
  /** Index in `messages` of the last closed turn's first result message (a reminder goes there). */
  lastResultsIndex: number | undefined;
  /** The last closed turn went wrong (a failure, only empty results, a slow tool) and no reflection followed yet. */
  reflectTrigger: 'tool_failure' | 'empty_result' | 'guard' | undefined;
}

export type { PlanState } from './plan-state.ts';
export { activeTime, callKey } from './run-counters.ts';

export function emptyConversation(status: RunStatus = 'queued'): ConversationState {
  return {
    started: false,
    status,
    terminal: false,
    messages: [],
    step: 0,
    usage: { ...ZERO_USAGE },
    toolMode: undefined,
    textCallsInNative: 0,
    turn: undefined,
    attempts: 0,
    decisions: new Map(),
    asked: new Set(),
    awaiting: new Set(),
    lastEventId: 0,
    deferred: [],
    untrusted: [],
    unusableTurns: 0,
    cancelRequested: undefined,
    modelCalls: 0,
    sideSteps: new Set(),
    toolCalls: 0,
    consecutiveFailures: 0,
    failuresReflected: false,
    callRepeats: new Map(),
    loopWarnedAt: undefined,
    activeMs: 0,
    activeSince: undefined,
    plan: undefined,
    replans: 0,
    pendingReplan: undefined,
    route: undefined,
    reflections: 0,
    todos: [],
    roundsSinceTodo: 0,
    lastResultsIndex: undefined,
    reflectTrigger: undefined,
  };
}

/** Applies events (in log order) to the state. */
export function applyEvents(state: ConversationState, events: readonly RunEvent[]): ConversationState {
  for (const event of events) applyEvent(state, event);
  return state;
}

function applyEvent(state: ConversationState, event: RunEvent): void {
  // Each event once, in order (history and live may overlap at the seam).
  if (event.id <= state.lastEventId) return;
  state.lastEventId = event.id;
  switch (event.type) {
    case 'run_started':
      state.started = true;
      if (event.data.toolMode === 'prompted') state.toolMode = 'prompted';
      state.activeSince ??= Date.parse(event.time);
      break;
    case 'run_status': {
      const at = Date.parse(event.time);
      const wasActive = ACTIVE_RUN_STATUSES.has(event.data.from) && event.data.from !== 'queued';
      const isActive = ACTIVE_RUN_STATUSES.has(event.data.to) && event.data.to !== 'queued';
      if (wasActive && !isActive && state.activeSince !== undefined) {
        state.activeMs += Math.max(0, at - state.activeSince);
        state.activeSince = undefined;
      } else if (!wasActive && isActive) {
        state.activeSince = at;
      }
      state.status = event.data.to;
      break;
    }
    case 'user_message': {
      const message: Message = { role: 'user', content: event.data.text };
      if (state.turn === undefined) state.messages.push(message);
      else state.deferred.push(message);
      break;
    }
    case 'assistant_message': {
      const d = event.data;
      state.modelCalls++;
      state.usage = addUsage(state.usage, d.usage);
      if (d.purpose !== undefined) {
        // A strategy's side call: counted (steps, usage, model calls), not a turn of the conversation.
        state.sideSteps.add(d.step);
        state.step = d.step;
        state.attempts = 0;
        break;
      }
      const mode = d.toolMode ?? 'native';
      state.toolMode = mode;
      if (mode === 'native' && d.diagnostics?.some((x) => x.code === 'text_call_ignored') === true) state.textCallsInNative++;
      if (d.step !== state.step) state.attempts = 0;
      state.step = d.step;
      state.attempts = d.attempt ?? state.attempts + 1;
      const calls = d.calls ?? d.toolCalls;
      countCalls(state, calls, event.id);
      if (mode === 'prompted') {
        state.messages.push({ role: 'assistant', content: d.text });
      } else {
        const content = d.content ?? d.text;
        const wire = wireCalls(calls);
        state.messages.push({
          role: 'assistant',
          content,
          ...(wire.length > 0 ? { toolCalls: wire } : {}),
          ...(d.providerData === undefined ? {} : { providerData: d.providerData }),
        });
      }
      if (calls.length > 0) state.turn = { step: d.step, mode, calls, results: new Map(), started: new Set() };
      break;
    }
    case 'parse_retry':
      // A side call's feedback went with that call only.
      if (!state.sideSteps.has(event.data.step)) state.messages.push({ role: 'user', content: event.data.feedback });
      break;
    case 'plan_created':
    case 'plan_revised':
      applyPlan(state, event.data, event.id, event.type === 'plan_revised');
      break;
    case 'reflection': {
      state.reflections++;
      state.reflectTrigger = undefined;
      const d = event.data;
      if (d.verdict === 'replan') state.pendingReplan = d.reason;
      if (d.verdict === 'continue' || d.verdict === 'replan') addNote(state, `Reflection on what happened so far (${d.verdict}): ${d.reason}`);
      break;
    }
    case 'tool_mode_changed':
      // The mode the next turn is asked in, also for a run resumed before that turn.
      state.toolMode = event.data.to;
      break;
    case 'intent_routed':
      state.route = event.data.route;
      break;
    case 'guard_tripped':
      if (event.data.action === 'warn') {
        state.loopWarnedAt = event.id;
        addNote(state, event.data.message);
      } else if (event.data.action === 'reflect') {
        state.failuresReflected = true;
        state.consecutiveFailures = 0;
      }
      break;
    case 'todo_updated':
      state.todos = event.data.todos;
      if (event.data.fromThread !== true) state.roundsSinceTodo = 0;
      break;
    case 'reminder_injected': {
      state.roundsSinceTodo = 0;
      const index = state.lastResultsIndex;
      const message = index === undefined ? undefined : state.messages[index];
      if (message !== undefined && index !== undefined) state.messages[index] = { ...message, content: `${event.data.text}\n${message.content}` };
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
      if (event.data.decision === 'invalid' && state.turn !== undefined && event.data.issues?.some((i) => i.code === UNREADABLE_ARGUMENTS) === true) {
        state.turn.unreadable = true;
      }
      break;
    case 'tool_result': {
      const turn = state.turn;
      if (turn === undefined) break;
      const d = event.data;
      if (d.untrusted === true) state.untrusted.push({ toolCallId: d.toolCallId, name: d.name, step: d.step });
      state.consecutiveFailures = !d.ok || d.slow === true ? state.consecutiveFailures + 1 : 0;
      if (d.slow === true) turn.slow = true;
      if (!d.ok && state.plan !== undefined && state.plan.status !== 'done' && state.plan.callIds.includes(d.toolCallId)) {
        state.plan.status = 'failed';
        if (d.error?.code !== 'skipped') state.plan.failures.push(`${d.name}: ${d.error?.message ?? 'failed'}`.slice(0, 500));
      }
      const result: ToolResult = { ok: d.ok, content: d.content };
      if (d.structuredContent !== undefined) result.structuredContent = d.structuredContent;
      if (d.error !== undefined) result.error = d.error;
      turn.results.set(d.toolCallId, result);
      if (turn.calls.every((c) => turn.results.has(c.id))) closeTurn(state, turn);
      break;
    }
    case 'input_received': {
      const input = event.data.input;
      if (input.type === 'approval') {
        const decision: ApprovalDecision = { decision: input.decision };
        if (input.arguments !== undefined) decision.arguments = input.arguments;
        if (input.reason !== undefined) decision.reason = input.reason;
        if (input.result !== undefined) decision.result = input.result;
        if (input.userId !== undefined) decision.userId = input.userId;
        state.decisions.set(input.toolCallId, decision);
      }
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

function closeTurn(state: ConversationState, turn: OpenTurn): void {
  const ordered = turn.calls.map((call) => ({ call, result: turn.results.get(call.id) }));
  state.lastResultsIndex = state.messages.length;
  state.roundsSinceTodo = turn.calls.some((c) => c.name === 'todo_write') ? 0 : state.roundsSinceTodo + 1;
  if (state.plan?.status === 'open' && state.plan.step === turn.step) state.plan.status = 'done';
  const results = ordered.map((o) => o.result);
  state.reflectTrigger = results.some((r) => r !== undefined && !r.ok)
    ? 'tool_failure'
    : turn.slow === true
      ? 'guard'
      : results.every((r) => r !== undefined && isEmptyResult(r))
        ? 'empty_result'
        : undefined;
  if (turn.mode === 'prompted') {
    // Models without native tool calling do not know the `tool` role: results come back as a user message.
    const body = ordered
      .map(({ call, result }) => `<tool_response name="${call.name}" id="${call.id}">\n${result === undefined ? '' : renderToolResult(result)}\n</tool_response>`)
      .join('\n');
    state.messages.push({ role: 'user', content: `Tool results:\n${body}` });
  } else {
    const wire = wireCalls(turn.calls);
    for (const [i, { call, result }] of ordered.entries()) {
      state.messages.push({ role: 'tool', toolCallId: wire[i]?.id ?? call.id, name: call.name, content: result === undefined ? '' : renderToolResult(result) });
    }
  }
  state.unusableTurns = turn.unreadable === true ? state.unusableTurns + 1 : 0;
  state.turn = undefined;
  state.messages.push(...state.deferred);
  state.deferred = [];
}

/**
 * The calls as the model API sees them: with the model's own ids where they
 * identify a call (some APIs insist on their id format), toolgate's where the
 * model repeated an id within the turn (the results must still pair up).
 */
function wireCalls(calls: readonly RawToolCall[]): RawToolCall[] {
  const seen = new Map<string, number>();
  for (const call of calls) if (call.providerId !== undefined && call.providerId !== '') seen.set(call.providerId, (seen.get(call.providerId) ?? 0) + 1);
  return calls.map((call) => {
    const own = call.providerId;
    const id = own !== undefined && own !== '' && seen.get(own) === 1 ? own : call.id;
    return { id, name: call.name, arguments: call.arguments };
  });
}

/** A note from toolgate to the model (a reflection, a guard warning): a user message, after the open turn's results if there is one. */
function addNote(state: ConversationState, text: string): void {
  const message: Message = { role: 'user', content: text };
  if (state.turn === undefined) state.messages.push(message);
  else state.deferred.push(message);
}

/** A result with nothing in it: no text, no structured content (or an empty one). */
function isEmptyResult(result: ToolResult): boolean {
  const text = result.content.every((c) => c.type !== 'text' || c.text.trim() === '') && result.content.every((c) => c.type === 'text');
  const structured = result.structuredContent;
  const noStructure =
    structured === undefined ||
    structured === null ||
    (Array.isArray(structured) && structured.length === 0) ||
    (typeof structured === 'object' && !Array.isArray(structured) && Object.keys(structured).length === 0);
  return text && noStructure;
}
