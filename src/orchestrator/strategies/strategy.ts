import type {
  EventDraft,
  GuardAction,
  GuardCode,
  JsonObject,
  JsonValue,
  LiveRouterEvidence,
  Message,
  ModelToolDefinition,
  ParsedToolCall,
  RawToolCall,
  RouterEvidence,
  RunPatch,
  RunSettings,
  RunStatus,
  StrategyName,
} from '../../core/index.ts';
import type { ApprovalDecision, ConversationState } from '../state/run-state.ts';
import type { CallOutcome, CallPreview } from '../call/execute-tool-call.ts';

// The contract between the engine's pass (step/) and the strategies: every type a
// strategy sees is declared here or comes from the floors below (call, log, state),
// so a strategy needs nothing of the pass but this file.

export type { PlanState } from '../state/run-state.ts';

/**
 * The one way from a strategy to a tool: a closure the engine builds around
 * executeToolCall (validate → gate → execute → record, on a call parsed once).
 * A strategy never holds a tool source, so no strategy can skip the gate — an
 * architecture test keeps it so.
 */
export type GateFn = (call: ParsedToolCall, options: GateCallOptions) => Promise<CallOutcome>;

export interface GateCallOptions {
  step: number;
  approval?: ApprovalDecision | undefined;
}

export interface TurnOptions {
  /** false: no tools are offered, the model answers from what it has. Default true. */
  tools?: boolean;
  /** A last user message for this request only. */
  instruction?: string;
}

export interface FinishOptions {
  /** Only these calls of the open turn (a plan runs its steps in order); default all. */
  only?: readonly string[];
  /** A decision that covers these calls (a whole plan was approved or rejected). */
  approval?: { decision: ApprovalDecision; calls: ReadonlySet<string> };
}

/** What one model step gave (see StrategyContext.modelTurn). */
export interface ModelTurnResult {
  /** Calls to execute (native or found in the text), parsed; empty = final answer. */
  calls: ParsedToolCall[];
  /** The answer text shown to the user. */
  content: string;
  truncated: boolean;
}

/** What a strategy asks of the model beside the conversation: a plan, a critique, a route. */
export interface SideCallRequest {
  purpose: 'plan' | 'reflect' | 'route';
  /** The messages to send. */
  messages: readonly Message[];
  /** Offer the run's tools as native definitions (a plan may come as native calls). */
  offerTools?: boolean;
}

export interface SideCallResult {
  /** The step the call was recorded as. */
  step: number;
  text: string;
  /** The text without reasoning (think blocks), trimmed. */
  answer: string;
  /** The reply's JSON object or array (fences, prose and think blocks around it ignored; repaired leniently). */
  json: JsonObject | JsonValue[] | undefined;
  /**
   * Tool calls the reply made (native, or written as text in a known format), parsed once, with the ids its
   * assistant_message records.
   */
  calls: ParsedToolCall[];
}

/** How running the open turn's calls ended: go on, wait for a person, or a return-direct tool's answer. */
export type TurnOutcome =
  | { kind: 'continue' }
  | { kind: 'waiting' }
  | { kind: 'direct'; output: string }
  /** The model called tools the caller runs itself (RunSettings.clientTools): the run hands them back and ends. */
  | { kind: 'client'; step: number; calls: HandedCall[] };

/** A call of a client tool, validated and normalised, handed back to the caller (event `client_tool_calls`). */
export interface HandedCall {
  toolCallId: string;
  name: string;
  arguments: JsonObject;
}

/** A limit the guard saw reached, and what the run does about it. */
export interface GuardTrip {
  code: GuardCode;
  action: GuardAction;
  limit: number;
  value: number;
  message: string;
  tool?: string;
}

/** What the engine says at a safe point between steps. */
export type Checkpoint =
  /** Go on; after a `replan` trip (conflicting evidence) the state has a pending re-plan for the loop to make. */
  | { kind: 'go' }
  /** Shutdown or a lost lease: stop without ending the run. */
  | { kind: 'pause' }
  /** The guard wants a reflection first (consecutive failures). */
  | { kind: 'reflect'; trip: GuardTrip }
  /** The guard ended the run with an answer from what is known (degrade mode). */
  | { kind: 'end'; outcome: StrategyOutcome };

/** What the engine hands a strategy for one pass over a run. */
export interface StrategyContext {
  readonly runId: string;
  /** The run's input. */
  readonly input: string;
  /** The run's conversation and position, kept equal to its log by the engine. */
  readonly state: Readonly<ConversationState>;
  readonly settings: Readonly<RunSettings>;
  readonly dryRun: boolean;
  /** The tools the model may use (names, descriptions, schemas), for prompts. */
  readonly toolDefinitions: readonly ModelToolDefinition[];
  /** Tools whose effect is `write` (by the gate's classification). */
  readonly writeTools: ReadonlySet<string>;
  /** The tool mode of the run's turns. */
  readonly mode: 'native' | 'prompted';
  /** System prompt and thread history, before the run's own messages. */
  readonly prefix: readonly Message[];
  /** Eval results the auto router may route by. */
  readonly routerEvidence?: RouterEvidence | undefined;
  /** Live outcomes per intent and strategy (RunEnvironment.liveEvidence), for `router.live`. */
  readonly liveEvidence?: LiveRouterEvidence | undefined;
  /** One model step (parse feedback rounds included); its events are recorded. */
  modelTurn(options?: TurnOptions): Promise<ModelTurnResult>;
  /** A model call beside the conversation (a plan, a critique, a route), recorded with its purpose. */
  sideCall(request: SideCallRequest): Promise<SideCallResult>;
  /** Runs the open turn's calls (or some of them), each through the gate; may pause the run for a person. */
  finishTurn(options?: FinishOptions): Promise<TurnOutcome>;
  /** The gate, for strategies that call tools themselves. */
  readonly gate: GateFn;
  /**
   * The gate's verdict on a call without running it (a plan is checked as a whole with this).
   * A call with its arguments as text (a string the model wrote in its plan) is read here, once.
   */
  preview(call: ParsedToolCall | RawToolCall, step: number): CallPreview;
  /** Records a result for calls of the open turn that will not be sent (a skipped or rejected plan step). */
  skip(callIds: readonly string[], code: 'skipped' | 'rejected', message: string): Promise<void>;
  /** Appends the strategy's own events, with a status change when `to` differs from the run's status. */
  record(drafts: EventDraft[], status?: { to: RunStatus; reason?: string; patch?: RunPatch }): Promise<void>;
  /** Makes the run wait for a person to decide on a whole plan. */
  askPlanApproval(plan: { planId: string; step: number; arguments: JsonObject }): Promise<void>;
  /**
   * A safe point between steps: throws when the run must end (cancelled, a
   * guard limit with onBreach fail, a model that keeps sending unusable
   * calls); see Checkpoint for the rest.
   */
  checkpoint(): Promise<Checkpoint>;
  /** The guard tripped outside a checkpoint (a strategy's own limit): fail or degrade, as configured. */
  breach(trip: GuardTrip): Promise<StrategyOutcome>;
}

/** How a pass ended: the engine records `completed`; `waiting` and `paused` leave the run as the log says. */
export type StrategyOutcome =
  | { kind: 'completed'; output: string }
  | { kind: 'waiting' }
  | { kind: 'paused' }
  /** Ends the run with calls for the caller to run (recorded as `client_tool_calls`); `output`: the turn's text. */
  | { kind: 'handed_back'; output: string; step: number; calls: HandedCall[] };

export interface Strategy {
  name: StrategyName;
  /** The status a new run enters (default `running`). */
  startStatus?: RunStatus;
  run(ctx: StrategyContext): Promise<StrategyOutcome>;
}
