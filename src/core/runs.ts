import type { ErrorInfo } from './errors.ts';
import type { Intent } from './intents.ts';
import type { RunEventDataMap } from './events.ts';
import type { JsonObject } from './json.ts';
import type { Message } from './messages.ts';
import type { ModelToolDefinition } from './ports/model-adapter.ts';
import type { RunStatus } from './run-status.ts';
import type { Usage } from './usage.ts';

// The statuses live apart so that the event vocabulary can name them without importing runs.
export { ACTIVE_RUN_STATUSES, RUN_STATUSES, TERMINAL_RUN_STATUSES, WAITING_RUN_STATUSES } from './run-status.ts';
export type { RunStatus } from './run-status.ts';

/** A run's current state: a projection of its event log, kept by the store. */
export interface Run {
  id: string;
  status: RunStatus;
  input: string;
  model: string;
  createdAt: string;
  updatedAt: string;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  output?: string;
  error?: ErrorInfo;
  usage: Usage;
  steps: number;
  /** Sequence number of the last event appended (0 before the first). */
  lastEventId: number;
  metadata?: JsonObject;
  /** Server-side values for injected arguments (`{{context.*}}`), never shown to the model. */
  context?: JsonObject;
  dryRun?: boolean;
  /**
   * How the run is driven, fixed when it is created and read back from the
   * store every time it is driven (after an approval, a restart, or by another
   * process). Absent only on runs stored before settings were kept.
   */
  settings?: RunSettings;
  /** The call waiting for a decision, while status is `waiting_approval`. */
  pendingApproval?: PendingApproval;
}

/** The names of the strategies a run may use (`react` is the default). */
export const STRATEGY_NAMES = ['react', 'plan', 'reflect', 'auto'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
export const DEFAULT_STRATEGY: StrategyName = 'react';
/**
 * What a run's `strategy` reads as in listings, filters and metrics: its
 * strategy, or `gateway` for a gateway session's run (no model drives it).
 */
export const RUN_STRATEGY_LABELS = [...STRATEGY_NAMES, 'gateway'] as const;
export type RunStrategyLabel = (typeof RUN_STRATEGY_LABELS)[number];

/**
 * Per-run settings: chosen when the run is created (request values over the
 * configuration) and stored with it, so every process that drives the run
 * drives the same run.
 */
export interface RunSettings {
  maxSteps: number;
  strategy: StrategyName;
  /** native | prompted | auto (native, falling back to prompted when the endpoint rejects tools). */
  toolMode: 'native' | 'prompted' | 'auto';
  /** Feedback rounds when the model's tool calls cannot be used, text or native. */
  parseRetries: number;
  /** Native mode: tool calls written in the answer text (never | auto | always). */
  textToolCalls: 'never' | 'auto' | 'always';
  /** Prompted mode: ask the endpoint for structured output in the call format. */
  constrain: boolean;
  /** Stream model output (assistant_delta events). */
  stream: boolean;
  /**
   * The runtime guard's limits for this run (config `guard`, then the tenant's). Absent on runs stored before it
   * existed.
   */
  guard?: GuardLimits;
  /** What the run's model costs, for `maxCostUsd` (config `prices`). */
  price?: ModelPrice;
  /** The plan strategy's settings. */
  plan?: PlanSettings;
  /** The built-in todo tools. */
  todo?: TodoSettings;
  /** Thread history is trimmed to this many tokens (estimated) before the run's first model call. */
  historyMaxTokens?: number;
  /**
   * Earlier messages of the conversation given with the request (a chat protocol sends the whole conversation each
   * time): the run uses them instead of its thread's history.
   */
  history?: Message[];
  /**
   * Tools the caller runs itself: offered to the model beside the tenant's tools; a call to one is parsed, validated
   * and normalised against its schema, then handed back (`client_tool_calls`) and the run completes. Not executed, and
   * not subject to the tenant's allow, deny or approval rules (they are the caller's own).
   */
  clientTools?: ModelToolDefinition[];
  /**
   * The roles of the caller who created the run (Caller.roles): the gate reads them, in whichever process drives the
   * run, for the tenant's role rules (`tenants.<id>.roles`) and conditions (`user.roles`).
   */
  roles?: string[];
  /** The W3C traceparent the run was created under: its spans continue that trace, and MCP calls carry it on. */
  traceparent?: string;
  /**
   * Present on a gateway session's run (`toolgate gateway`): the MCP client's
   * tool calls, recorded as they pass the gate. No model drives such a run;
   * the gateway process that holds its lease writes it.
   */
  gateway?: GatewaySessionSettings;
  /** How the auto strategy's router decides: `live` adds the live outcomes (router.live, per tenant or rollout). */
  router?: { live: boolean };
  /**
   * The rollouts the run takes part in (config `rollout`): which setting, and whether the run was treated (the
   * setting applied) or is in the control share. Sticky per thread.
   */
  rollouts?: RolloutArm[];
}

/** A run's place in one rollout (RunSettings.rollouts). */
export interface RolloutArm {
  /** The rollout's name: the setting's path, e.g. `router.live`. */
  name: string;
  arm: 'treated' | 'control';
}

/** What a gateway session's run records of its MCP client. */
export interface GatewaySessionSettings {
  transport: 'stdio' | 'http';
  /** The client's `clientInfo`, as it introduced itself (untrusted: shown, never acted on). */
  client?: { name: string; version?: string };
  /** The MCP protocol revision the session speaks. */
  protocolVersion?: string;
  /** Writes are validated and recorded, not executed (config, tenant or session). */
  dryRun: boolean;
  /**
   * The virtual server (`gateway.endpoints`) the session came through: its path, e.g. `/mcp/trading`, or `/mcp` when
   * `gateway.endpoints["/mcp"]` narrows the plain endpoint. Absent: the plain endpoint, everything the tenant may use.
   */
  endpoint?: string;
}

/** A virtual server's path (`gateway.endpoints`): `/mcp/` and one name of lower-case letters, digits, `-` or `_`. */
export const GATEWAY_ENDPOINT_PATH = /^\/mcp\/[a-z0-9][a-z0-9_-]{0,63}$/;

/** Limits the runtime guard enforces for a run (docs/strategies.md). Absent: no limit. */
export interface GuardLimits {
  maxToolCalls?: number | undefined;
  maxTokens?: number | undefined;
  maxWallMs?: number | undefined;
  maxCostUsd?: number | undefined;
  /** Failed (or slow) tool results in a row: the run reflects once, then stops with `tool_failures`. */
  maxConsecutiveFailures?: number | undefined;
  /** A tool result slower than this is marked `slow` and counts as a failure signal. */
  maxToolLatencyMs?: number | undefined;
  /**
   * The 95th percentile of the run's own tool-call latencies (once it has made 5 calls) over this: the run degrades
   * to summary mode (`tool_latency_p95`: the model answers from what it has, with no more tools).
   */
  maxToolLatencyP95Ms?: number | undefined;
  /**
   * Results that contradict an earlier result of the same call (step_signal `conflicts`) this many times: the run
   * plans again from the evidence (`conflicting_evidence`, action `replan`). Default 2; 0 turns it off.
   */
  maxConflicts?: number | undefined;
  /**
   * The same tool with the same arguments this many times: the model is told once, then the run stops
   * (`loop_detected`).
   */
  maxRepeats?: number | undefined;
  /**
   * What a breach does: `fail` ends the run failed with the code; `degrade` asks the model for an answer from what is
   * known, with no more tools.
   */
  onBreach?: 'fail' | 'degrade' | undefined;
}

/** US dollars per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** What an eval report says about strategies per kind of request (`toolgate eval --out`), for the auto router. */
export interface RouterEvidence {
  /** Where it was read from. */
  source: string;
  byIntent: {
    intent: Intent;
    strategy: StrategyName;
    passRate: number;
    avgCostUsd: number;
    runs: number;
  }[];
}

/**
 * What the live statistics say per kind of request and strategy over their window (router.live): runs of auto that
 * ended in the window, and their average cost.
 */
export interface LiveRouterEvidence {
  windowMs: number;
  byIntent: {
    intent: Intent;
    strategy: StrategyName | 'answer';
    completed: number;
    failed: number;
    avgCostUsd?: number;
  }[];
}

export interface PlanSettings {
  /** One approval for the whole plan (`plan`, default) or one per step that needs it (`step`). */
  approval: 'plan' | 'step';
  /** Re-plans after a failed step before the model is asked to answer from what it has. */
  maxReplans: number;
}

export interface TodoSettings {
  enabled: boolean;
  /** Tool rounds in a row without todo_write before the reminder. */
  remindAfter: number;
}

/**
 * The call (or, `kind: 'plan'`, the whole plan) waiting for a decision: what
 * its approval_required event said, but the step, and that event's id.
 */
export type PendingApproval = Omit<RunEventDataMap['approval_required'], 'step'> & {
  /** Id of the approval_required event. */
  eventId: number;
};

/** What a caller supplies to create a run; the store fills in the rest. */
export interface NewRun {
  id?: string;
  input: string;
  model: string;
  status?: RunStatus;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  metadata?: JsonObject;
  context?: JsonObject;
  dryRun?: boolean;
  settings?: RunSettings;
}

/** Fields the loop may change together with an append. */
export type RunPatch = Partial<Pick<Run, 'status' | 'output' | 'error' | 'usage' | 'steps'>> & {
  /** Set while waiting for a decision; `null` clears it. */
  pendingApproval?: PendingApproval | null;
};

/** A conversation reused across runs by `threadId`: the messages so far. */
export interface Thread {
  id: string;
  tenantId?: string;
  messages: Message[];
  createdAt: string;
  updatedAt: string;
}

const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Random bytes drawn in batches (one getRandomValues call per 341 ids); each byte is used once. */
const ID_POOL = new Uint8Array(4092);
let idPoolAt = ID_POOL.length;

/** A short random id with a readable prefix (`run_…`, `call_…`): 24 hex digits (96 random bits). */
export function newId(prefix: string): string {
  if (idPoolAt + 12 > ID_POOL.length) {
    globalThis.crypto.getRandomValues(ID_POOL);
    idPoolAt = 0;
  }
  let id = `${prefix}_`;
  for (let i = 0; i < 12; i += 1) id += HEX_BYTES[ID_POOL[idPoolAt++] ?? 0];
  return id;
}
