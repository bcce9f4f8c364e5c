import {
  ZERO_USAGE,
  canonicalJson,
  type JsonObject,
  type JsonValue,
  type Message,
  type ParsedToolCall,
  type PlanStep,
  type Provenance,
  type RunEventDataMap,
  type RunStatus,
  type TodoItem,
  type ToolResult,
  type Usage,
} from '../../core/index.ts';

type StepSignal = RunEventDataMap['step_signal'];

/**
 * What the per-step signals of tool turns are computed from, kept by the reducer as results are applied: the
 * informative tokens of the run's earlier results (evidence gained), and each call's last successful result by tool
 * and arguments (conflicts). Each result is read once, so the cost is the size of the results.
 */
export interface EvidenceState {
  /** Tokens of the results of closed turns. */
  seen: Set<string>;
  /** Tokens of the open turn's results. */
  turnTokens: Set<string>;
  /** The last successful result of each call key: a fingerprint of its content and the call that gave it. */
  lastByCall: Map<string, { fingerprint: string; toolCallId: string }>;
  /** The open turn's results that contradict an earlier result of the same call. */
  turnConflicts: NonNullable<StepSignal['conflicting']>;
}

export function emptyEvidence(): EvidenceState {
  return { seen: new Set(), turnTokens: new Set(), lastByCall: new Map(), turnConflicts: [] };
}

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
  /** The turn's calls, parsed once: by the model turn that read them, or from the log when the run is resumed. */
  calls: ParsedToolCall[];
  results: Map<string, ToolResult>;
  /** Calls whose tool_call event was committed (the tool may have been reached). */
  started: Set<string>;
  /** The model hit its token limit in this turn. */
  truncated?: boolean;
  /** The turn's text as the user is shown it (without call envelopes), when the model wrote one. */
  shown?: string;
  /** Some call's arguments could not be read as JSON at all (native calls; text calls are retried within the step). */
  unreadable?: boolean;
  /** Some result was slower than the guard's maxToolLatencyMs. */
  slow?: boolean;
}

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
  /**
   * Replies in native mode whose call, written as text after prose, was not run (`text_call_ignored`): see
   * text-call-retry.ts.
   */
  textCallsInNative: number;
  turn: OpenTurn | undefined;
  /**
   * Calls this process has already parsed (a model turn, a plan's checked
   * steps), by id, until the event that records them is applied: that event's
   * arguments strings are then not parsed again. Empty for a run read from its log.
   */
  handover: Map<string, ParsedToolCall>;
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
  /** What the per-step signals are computed from (state/step-signals.ts). */
  evidence: EvidenceState;
  /** The signals of the last closed tool turn, until its step_signal is in the log. */
  signalDue: StepSignal | undefined;
  /** Conflicting results (step_signal `conflicts`) since the last plan or the guard's last re-plan. */
  conflictsSincePlan: number;
  /** The guard made the run plan again for conflicting evidence once: the next trip is a breach. */
  conflictsReplanned: boolean;
  /** Latencies (ms) of the tool calls the run executed, in log order: the guard's p95. */
  toolLatencies: number[];
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
    textCallsInNative: 0,
    turn: undefined,
    handover: new Map(),
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
    evidence: emptyEvidence(),
    signalDue: undefined,
    conflictsSincePlan: 0,
    conflictsReplanned: false,
    toolLatencies: [],
  };
}

/** Active time of the run so far, in ms (time waiting for a person excluded). */
export function activeTime(state: ConversationState, now = Date.now()): number {
  return state.activeMs + (state.activeSince === undefined ? 0 : Math.max(0, now - state.activeSince));
}

/**
 * The key loop detection counts calls by: the tool and its arguments as JSON
 * (key order ignored). Arguments that could not be read have no key:
 * unreadable calls have their own limit (parseRetries).
 */
export function callKey(call: ParsedToolCall): string | undefined {
  return 'input' in call ? `${call.name}\u0000${canonicalJson(call.input)}` : undefined;
}
