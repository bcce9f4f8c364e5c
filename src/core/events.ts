import type { ErrorInfo } from './errors.ts';
import type { GateDecisionKind } from './gate-decision-kind.ts';
import type { Intent } from './intents.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { ReplayDiff } from './replay.ts';
import type { RunStatus } from './run-status.ts';
import type { RawToolCall, ToolContent, ToolErrorCode, ToolOrigin } from './tools.ts';
import type { Usage } from './usage.ts';

/**
 * The run event vocabulary. A run is an append-only list of these, numbered per
 * run from 1. Event type names and the fields below are a public contract (SSE
 * `event:` names, `--json` output, the store): add fields and types, never
 * rename or remove them. docs/events.md documents each one.
 */
export interface RunEventDataMap {
  /** The run began. */
  run_started: {
    input: string;
    model: string;
    tools: string[];
    maxSteps: number;
    threadId?: string;
    /** How tools were offered: native tool definitions or described in the prompt. */
    toolMode?: 'native' | 'prompted' | 'auto';
    /** The run's strategy (react, …). */
    strategy?: string;
    dryRun?: boolean;
    /** Tool servers that could not be reached when the run started: the run goes on with the others. */
    unavailable?: { server: string; reason: string; tools: string[] }[];
  };
  /** A user message entered the conversation (the run's input, or a later message). */
  user_message: { text: string };
  /** A piece of assistant text as it streamed in. Concatenated deltas of a step equal its message text. */
  assistant_delta: { step: number; text: string };
  /** The model finished a turn: its text and the tool calls it asked for, raw. */
  assistant_message: {
    step: number;
    text: string;
    /**
     * The reasoning the API returned apart from the text (`reasoning_content`, thinking blocks), when there was some.
     */
    reasoning?: string;
    /** Opaque data the model's provider needs back with this turn (ModelResponse.providerData). */
    providerData?: JsonObject;
    toolCalls: RawToolCall[];
    finishReason: string;
    usage?: Usage;
    latencyMs: number;
    /** The text shown to the user: `text` without the tool-call envelopes found in it (when different). */
    content?: string;
    /**
     * The calls toolgate will execute, each with an id of toolgate's own
     * (unique in the run; `providerId` keeps the model's id for the wire):
     * native calls, or calls found in the text (prompted mode, or a model that
     * writes calls as text) with arguments as JSON. Absent when there are none.
     */
    calls?: RawToolCall[];
    /** The mode of this turn (`prompted` after an `auto` fallback). */
    toolMode?: 'native' | 'prompted';
    /** 1 for the first try of a step, 2… after parse feedback. */
    attempt?: number;
    /**
     * What the parser repaired or rejected in this turn. `repairs`: the repair
     * kinds of a `repaired` diagnostic (docs/parsing.md), on replies recorded
     * since they were kept.
     */
    diagnostics?: { code: string; message: string; repairs?: string[] }[];
    /**
     * A strategy's side call, not a turn of the conversation: `plan` (the
     * plan is then recorded by plan_created), `reflect`, `route`.
     */
    purpose?: 'plan' | 'reflect' | 'route';
  };
  /**
   * A tool is about to be called (committed before the call is made, except for a read: with its result, or after 20
   * ms).
   */
  tool_call: {
    step: number;
    toolCallId: string;
    name: string;
    arguments: JsonObject;
    origin?: ToolOrigin;
  };
  /** A tool call ended, successfully or not. */
  tool_result: {
    step: number;
    toolCallId: string;
    name: string;
    ok: boolean;
    content: ToolContent[];
    structuredContent?: JsonValue;
    error?: { code: ToolErrorCode; message: string };
    latencyMs: number;
    /** The call was validated but not executed (dry run). */
    dryRun?: boolean;
    /** The tool returns untrusted content (config `untrusted`, or MCP `openWorldHint`): later writes need approval. */
    untrusted?: boolean;
    /** Not executed now: a person confirmed that a call whose outcome was unknown did happen (`mark_done`). */
    markedDone?: boolean;
    /** Slower than the guard's maxToolLatencyMs: counts as a failure signal. */
    slow?: boolean;
    /** Gateway mode: the result was larger than `gateway.maxResultBytes` and was cut; `bytes` is its size before. */
    truncated?: { bytes: number; limit: number };
  };
  /** The run ended with an answer. */
  run_completed: { output: string; usage: Usage; steps: number };
  /** The run ended with an error. */
  run_failed: { error: ErrorInfo; usage?: Usage; steps?: number };
  /** The run was cancelled by a client; calls in flight were aborted. */
  run_cancelled: { reason?: string; usage?: Usage; steps?: number };
  /** The run's status changed. Every status change has exactly one of these. */
  run_status: { from: RunStatus; to: RunStatus; reason?: string };
  /**
   * A model turn's tool calls could not be used (unparseable, unknown tool,
   * truncated): the model was told what was wrong and asked again.
   */
  parse_retry: {
    step: number;
    attempt: number;
    maxAttempts: number;
    diagnostics: { code: string; message: string }[];
    feedback: string;
  };
  /** The gate's verdict on one tool call, before anything is executed. */
  gate_decision: {
    step: number;
    toolCallId: string;
    name: string;
    effect: ToolEffect;
    decision: GateDecisionKind;
    normalisations: { path: string; from: JsonValue; to?: JsonValue; rule: string }[];
    injected: { key: string; overridden: boolean }[];
    policyRule?: string;
    reason?: string;
    issues?: { code: string; path: string; message: string }[];
    hook?: { name: string; action: string; reason?: string };
    /**
     * The tool rule's condition (`when:`) that decided: the `deny` that refused the call, or the one that chose its
     * approval. `when`: the expression as written, or the JSON Schemas as canonical JSON; `error`: it could not be
     * evaluated, and was taken as matched (a deny, or a person asked).
     */
    condition?: {
      pattern: string;
      index: number;
      when: string;
      effect: 'deny' | 'approval';
      reason?: string;
      error?: string;
    };
  };
  /**
   * A call waits for a person. `reason` is 'policy' (the rule asks for
   * approval), 'untrusted_output' (a write that follows untrusted tool output,
   * whatever its rule says) or 'outcome_unknown' (a write was sent and no
   * answer came — the process stopped, the call timed out, was aborted or lost
   * its connection: it may or may not have happened, so it is never repeated
   * silently).
   */
  approval_required: {
    step: number;
    toolCallId: string;
    name: string;
    arguments: JsonObject;
    effect: ToolEffect;
    reason: ApprovalReason;
    /** What happened to a call whose outcome is unknown (e.g. "did not answer within 5000 ms"). */
    detail?: string;
    /** The untrusted tool outputs that entered the run before this call. */
    provenance?: Provenance[];
    /**
     * `plan`: the whole plan waits (toolCallId is the planId, arguments hold its steps): approve or reject it as a
     * whole.
     */
    kind?: 'plan';
  };
  /**
   * A notification about a call waiting for a person went to one notify target (`approvals.notify`,
   * `approvals.escalation.notify`): delivered, or failed after every attempt (`failures` lists each failed attempt).
   * Appended without a lease, like client input; it changes nothing in the run's state.
   */
  approval_notified: {
    toolCallId: string;
    /** The target's `name`. */
    target: string;
    /** `first`: when the call began to wait; `again`: onTimeout notify-again; `escalation`: the escalation targets. */
    round: 'first' | 'again' | 'escalation';
    outcome: 'delivered' | 'failed';
    /** Attempts made (1 when the first one was delivered). */
    attempts: number;
    /** Each attempt that failed: its HTTP status when one came, and why. */
    failures?: { attempt: number; status?: number; error: string }[];
    /** The `webhook-id` sent (the same on every attempt of one delivery, so receivers drop repeats). */
    deliveryId: string;
    /** Ids of the decision links the notification carried (see DecisionSource.linkId). */
    linkIds?: string[];
  };
  /**
   * A call waited longer than `approvals.timeoutMs` (or `approvals.escalation.timeoutMs` once escalated) and
   * `action` was taken: `reject` (a decision with source `timeout` follows), `escalate` (the escalation targets are
   * notified and its approvers may decide) or `notify-again`. Appended by one process only (written against the
   * run's last event id), so several instances never act twice on one timeout.
   */
  approval_timed_out: {
    toolCallId: string;
    action: 'reject' | 'escalate' | 'notify-again';
    /** How long the call had waited when the timeout fired. */
    waitedMs: number;
    /** 1 for the first timeout of this call, 2 for the next, … */
    round: number;
  };
  /** Input from a client reached the run: an approval decision or a message. */
  input_received: { input: RunInput };
  /**
   * A client asked to cancel the run. Whichever process drives the run sees
   * it in the log and ends the run with run_cancelled; calls in flight are aborted.
   */
  cancel_requested: { reason: string; userId?: string };
  /**
   * The plan strategy's plan, checked as a whole by the gate before any step
   * runs: each tool step validated and normalised, with the gate's verdict.
   * Its tool steps are the calls of one turn (`step`), run in order.
   */
  plan_created: PlanEventData;
  /** A new plan after a failed step (or a rejected plan, or a reflection that chose `replan`). */
  plan_revised: PlanEventData & { reason: string; revision: number };
  /** The model's critique of what happened against the goal, and what the run does next. */
  reflection: {
    step: number;
    trigger: 'tool_failure' | 'empty_result' | 'guard';
    verdict: 'continue' | 'replan' | 'give_up' | 'escalate';
    reason: string;
    /** The verdict could not be read from the model's reply: `continue` was assumed. */
    unreadable?: boolean;
    /** How sure the model said it was of the verdict, from 0 to 1 (also a step_signal `verdictConfidence`). */
    confidence?: number;
  };
  /** The `auto` strategy's choice for this run. */
  intent_routed: {
    /** `reflect` only when eval evidence chose it. */
    route: 'answer' | 'react' | 'plan' | 'reflect';
    reason: string;
    /**
     * The eval results that chose the strategy (router.evalResults): the
     * request's intent class and the pass rates the choice was made from.
     */
    evidence?: {
      source: string;
      intent: string;
      strategy: string;
      passRate: number;
      avgCostUsd: number;
      runs: number;
      compared: { strategy: string; passRate: number; avgCostUsd: number }[];
    };
    /**
     * The live outcomes that chose the strategy (`router.live`): a Beta-Bernoulli bandit per intent over the stats
     * window, each candidate's posterior and the draw that decided (docs/strategies.md, "Routing that learns").
     */
    live?: LiveRouting;
    /** The kind of request the route serves (answer, lookup, change): the intent live statistics are kept under. */
    intent?: Intent;
    /** `signals`: decided from the request alone; `model`: a short model call decided. */
    by: 'signals' | 'model';
    signals: { toolsMentioned: string[]; changeVerbs: string[]; steps: number; chars: number };
  };
  /**
   * The runtime guard saw a limit reached. `action`: `fail` (the run ends
   * failed with `code`), `degrade` (the model answers from what is known, with
   * no more tools), `warn` (the model is told; the run goes on), `reflect`
   * (the model is asked to reflect first).
   */
  guard_tripped: {
    code: GuardCode;
    /** The tool concerned (loop detection). */
    tool?: string;
    action: GuardAction;
    limit: number;
    value: number;
    message: string;
  };
  /**
   * Signals a strategy computed for a step (docs/strategies.md, "Per-step signals"), each from 0 to 1 but
   * `conflicts`: how well the plan's tool steps went (`planCoverage`), how sure a reflection's verdict was
   * (`verdictConfidence`), how much new information the step's tool results brought (`evidenceGained`), and how many
   * results contradicted an earlier result of the same call (`conflicts`, with the calls named in `conflicting`).
   * The guard reads them.
   */
  step_signal: {
    step: number;
    planCoverage?: number;
    verdictConfidence?: number;
    evidenceGained?: number;
    conflicts?: number;
    conflicting?: { tool: string; toolCallId: string; earlierCallId: string }[];
  };
  /**
   * A rollout's treated share failed more often than its threshold over the window and was switched off
   * (docs/strategies.md, "Rollouts"): new runs of its tenants get the setting's usual value. Recorded on a run of the
   * thread `toolgate:rollouts`.
   */
  rollout_rolled_back: {
    rollout: string;
    /** The configuration's fingerprint: a changed rollout starts again. */
    fingerprint: string;
    failureRate: number;
    threshold: number;
    treatedRuns: number;
    controlFailureRate?: number;
    controlRuns: number;
    windowMs: number;
    message: string;
  };
  /** The run's todo list changed (todo_write), or was carried over from the thread at the start. */
  todo_updated: { todos: TodoItem[]; toolCallId?: string; fromThread?: boolean };
  /** `<reminder>…</reminder>` was put first in the tool results the model gets next. */
  reminder_injected: { step: number; rounds: number; text: string };
  /** Thread history was cut to the token budget before the run's first model call. */
  history_trimmed: { budget: number; tokensBefore: number; tokensAfter: number; shortened: number; dropped: number };
  /**
   * Gateway mode: an upstream MCP tool's definition (name, title, description,
   * schemas, annotations) differs from the one pinned when it was first seen or
   * last accepted. The tool is hidden and refused until an operator accepts the
   * change (`toolgate tools --diff`, `toolgate tools --accept <tool>`).
   */
  tool_changed: {
    name: string;
    server: string;
    tool: string;
    fingerprint: string;
    pinnedFingerprint: string;
    pinnedAt: string;
    changes: string[];
  };
  /**
   * Gateway mode: an upstream server sent the session's client a request through the gateway (sampling, elicitation,
   * roots), and what became of it. `summary` is bounded (never a whole prompt): for sampling the number of messages,
   * maxTokens and the model hints; `reason` says why it was denied, failed or cancelled.
   */
  upstream_request: {
    server: string;
    method: string;
    outcome: 'forwarded' | 'denied' | 'failed' | 'cancelled';
    reason?: string;
    summary: string;
  };
  /**
   * Gateway mode: a request of the session's client other than `tools/call` (whose refusals are recorded as its
   * tool call's events) refused before it reached an upstream server: `code` says by what (`rate_limited`:
   * `gateway.rateLimits`), `reason` the message the client got.
   */
  request_refused: {
    method: string;
    code: 'rate_limited';
    reason: string;
  };
  /**
   * Gateway mode: a log message (MCP `notifications/message`) an upstream server sent for this session, as recorded:
   * `data` cut to about 4 KB; at most a bounded number per minute are recorded, and `dropped` counts those left out
   * since the last one recorded.
   */
  upstream_log: {
    server: string;
    level: string;
    logger?: string;
    data: JsonValue;
    dropped?: number;
  };
  /**
   * The run's tool mode changed for the rest of the run: `text_calls`, the
   * model kept writing its calls as text in native mode (textToolCalls: auto);
   * `tools_unsupported`, the endpoint refused tool definitions (toolMode: auto).
   * Recovery reads the mode from here: a resumed run stays in the new mode.
   */
  tool_mode_changed: {
    step: number;
    from: 'native' | 'prompted';
    to: 'native' | 'prompted';
    cause: 'text_calls' | 'tools_unsupported';
    reason: string;
    model: string;
  };
  /**
   * The model called tools the caller runs itself (a request's `clientTools`, e.g. an OpenAI `tools` list): the
   * calls were parsed, validated and normalised against the caller's schemas and are handed back, not executed.
   * Appended with the `run_completed` that ends the run (its `output`: the text of that turn).
   */
  client_tool_calls: {
    step: number;
    calls: { toolCallId: string; name: string; arguments: JsonObject }[];
  };
  /**
   * A stored replay (`toolgate replay --save`): how it compares with the run it replays (`of`, also the run's
   * `metadata.replayOf`). Appended before the replay's terminal event.
   */
  replay_compared: { of: string; diff: ReplayDiff };
  /**
   * A run forked from another (`POST /v1/runs/{id}/fork`): the events before this one are copies of that run's, up to
   * `afterEventId`; `settings`: what the fork changed.
   */
  run_forked: { from: string; afterEventId: number; settings?: JsonObject };
}

/** Guard codes: also the error codes a run fails with. */
export type GuardCode =
  | 'max_steps'
  | 'budget_tool_calls'
  | 'budget_tokens'
  | 'budget_time'
  | 'budget_cost'
  | 'tool_failures'
  | 'loop_detected'
  | 'tool_latency_p95'
  | 'conflicting_evidence';

/** What a guard trip does: end the run, answer without tools, tell the model, reflect first, or plan again. */
export type GuardAction = 'fail' | 'degrade' | 'warn' | 'reflect' | 'replan';

/** How `router.live` chose a strategy: the candidates' posteriors over the live window and the draws. */
export interface LiveRouting {
  rule: 'beta-bernoulli';
  /** Length of the statistics window the counts come from. */
  windowMs: number;
  arms: {
    strategy: string;
    /** Prior from the eval results (passRate × runs, plus 1), or 1 without them. */
    priorAlpha: number;
    priorBeta: number;
    /** Live runs of this intent and strategy that completed and that failed, in the window. */
    completed: number;
    failed: number;
    /** The draw from Beta(priorAlpha + completed, priorBeta + failed); seeded by the run id. */
    sample: number;
    avgCostUsd?: number;
    /** Left out because its average cost is over the run's guard.maxCostUsd. */
    overBudget?: boolean;
  }[];
  chosen: string;
}

export interface TodoItem {
  id: string;
  text: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** One step of a plan: a tool call (with the gate's verdict) or a reasoning step. */
export interface PlanStep {
  index: number;
  kind: 'tool' | 'reasoning';
  /** A reasoning step's text, or a tool step's purpose when the model gave one. */
  text?: string;
  toolCallId?: string;
  name?: string;
  /** What the call will run with, for people: normalised, injected, redacted. */
  arguments?: JsonObject;
  /**
   * The arguments as the model wrote them: what the step's call carries through the gate, and what the model sees of
   * its plan.
   */
  raw?: string;
  effect?: ToolEffect;
  /** The gate's verdict when the plan was checked. */
  decision?: GateDecisionKind;
}

export interface PlanEventData {
  planId: string;
  /** The turn whose calls are the plan's tool steps. */
  step: number;
  steps: PlanStep[];
  /** Indexes of the steps that change state. */
  writes: number[];
  /** How the plan is approved: once as a whole, per step, or not at all (nothing needs it). */
  approval: 'plan' | 'step' | 'none';
  /** The plan's own answer: ends the run when the plan has no tool step. */
  finalAnswer?: string;
}

export type ToolEffect = 'read' | 'write';
export type ApprovalReason = 'policy' | 'untrusted_output' | 'outcome_unknown';

/** An untrusted tool output that entered the run (see `untrusted` in docs/policy.md). */
export interface Provenance {
  toolCallId: string;
  name: string;
  step: number;
}
export type { GateDecisionKind } from './gate-decision-kind.ts';

/** Input a client sends to a run that is waiting or running. */
export type RunInput =
  | {
      type: 'approval';
      toolCallId: string;
      /**
       * `approve` (execute; again, for an unknown outcome), `reject`, `edit`
       * (execute with `arguments`), or `mark_done` (only for an unknown
       * outcome: it did happen — do not execute; `result` is what the person saw).
       */
      decision: 'approve' | 'reject' | 'edit' | 'mark_done';
      arguments?: JsonObject;
      reason?: string;
      result?: JsonValue;
      userId?: string;
      /** Where the decision came from (absent: the runs API, the console or the CLI). */
      source?: DecisionSource;
    }
  | { type: 'message'; text: string; userId?: string };

/**
 * Where an approval decision came from. `api`: the runs API (the console and the CLI use it); `link`: a decision
 * link opened in a browser; `chat`: a decision link's token POSTed by a bot (`POST /v1/approvals/{token}`); `timeout`:
 * `approvals.onTimeout: reject`; `elicitation`: the gateway's MCP client asked its user; `ui`: the AI SDK chat route.
 */
export interface DecisionSource {
  via: 'api' | 'link' | 'chat' | 'timeout' | 'elicitation' | 'ui';
  /** The notify target whose link was used. */
  target?: string;
  /** The decision link's id (its `jti`). */
  linkId?: string;
  /** Who the bot says decided (as sent: recorded, not verified). */
  actor?: string;
  /** The deciding caller's roles, when the decision needed one (tenants.<id>.approvers). */
  roles?: string[];
}

export type RunEventType = keyof RunEventDataMap;

/** Every event type, in a stable order. Pinned by test/architecture. */
export const RUN_EVENT_TYPES = [
  'run_started',
  'user_message',
  'assistant_delta',
  'assistant_message',
  'tool_call',
  'tool_result',
  'run_completed',
  'run_failed',
  'run_cancelled',
  'run_status',
  'parse_retry',
  'gate_decision',
  'approval_required',
  'input_received',
  'cancel_requested',
  'plan_created',
  'plan_revised',
  'reflection',
  'intent_routed',
  'guard_tripped',
  'todo_updated',
  'reminder_injected',
  'history_trimmed',
  'tool_changed',
  'upstream_log',
  'upstream_request',
  'request_refused',
  'tool_mode_changed',
  'client_tool_calls',
  'replay_compared',
  'run_forked',
  'approval_notified',
  'approval_timed_out',
  'step_signal',
  'rollout_rolled_back',
] as const satisfies readonly RunEventType[];

/** Event types after which nothing more is appended to a run. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'run_completed',
  'run_failed',
  'run_cancelled',
]);

/** A stored event: `id` is the per-run sequence number (1, 2, 3, …). */
export type RunEvent<T extends RunEventType = RunEventType> = {
  [K in T]: { id: number; runId: string; type: K; time: string; data: RunEventDataMap[K] };
}[T];

/** An event before the store numbers and timestamps it. */
export type EventDraft<T extends RunEventType = RunEventType> = {
  [K in T]: { type: K; data: RunEventDataMap[K] };
}[T];

export function draft<K extends RunEventType>(type: K, data: RunEventDataMap[K]): EventDraft<K> {
  // TypeScript cannot see that `{type, data}` for one K is that K's member of the union (microsoft/TypeScript#30581).
  return { type, data } as EventDraft<K>;
}

/** Any type name may be asked about: a set of the terminal ones answers for every string. */
const TERMINAL_TYPE_NAMES: ReadonlySet<string> = TERMINAL_EVENT_TYPES;

export function isTerminalEvent(event: { type: string }): boolean {
  return TERMINAL_TYPE_NAMES.has(event.type);
}
