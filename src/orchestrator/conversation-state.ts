import {
  ZERO_USAGE,
  addUsage,
  renderToolResult,
  type JsonObject,
  type JsonValue,
  type Message,
  type Provenance,
  type RawToolCall,
  type RunEvent,
  type RunStatus,
  type ToolResult,
  type Usage,
} from '../core/index.ts';

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
}

export function emptyConversation(status: RunStatus = 'queued'): ConversationState {
  return {
    started: false,
    status,
    terminal: false,
    messages: [],
    step: 0,
    usage: { ...ZERO_USAGE },
    toolMode: undefined,
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
      break;
    case 'run_status':
      state.status = event.data.to;
      break;
    case 'user_message': {
      const message: Message = { role: 'user', content: event.data.text };
      if (state.turn === undefined) state.messages.push(message);
      else state.deferred.push(message);
      break;
    }
    case 'assistant_message': {
      const d = event.data;
      const mode = d.toolMode ?? 'native';
      state.toolMode = mode;
      if (d.step !== state.step) state.attempts = 0;
      state.step = d.step;
      state.attempts = d.attempt ?? state.attempts + 1;
      state.usage = addUsage(state.usage, d.usage);
      const calls = d.calls ?? d.toolCalls;
      if (mode === 'prompted') {
        state.messages.push({ role: 'assistant', content: d.text });
      } else {
        const content = d.content ?? d.text;
        const wire = wireCalls(calls);
        state.messages.push({ role: 'assistant', content, ...(wire.length > 0 ? { toolCalls: wire } : {}) });
      }
      if (calls.length > 0) state.turn = { step: d.step, mode, calls, results: new Map(), started: new Set() };
      break;
    }
    case 'parse_retry':
      state.messages.push({ role: 'user', content: event.data.feedback });
      break;
    case 'tool_call':
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
