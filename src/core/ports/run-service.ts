import type { RunInput, ToolEffect } from '../events.ts';
import type { JsonObject } from '../json.ts';
import type { Run, RunStrategyLabel } from '../runs.ts';
import type { Message } from '../messages.ts';
import type { ToolSpec } from '../tools.ts';
import type { ModelToolDefinition } from './model-adapter.ts';
import type { ToolSourceHealth } from './tool-source.ts';
import type { ListRunsQuery, RunPage } from './run-store.ts';

/** Who is asking: resolved by the server from the API key or the bearer token (OIDC). */
export interface Caller {
  tenantId?: string;
  userId?: string;
  /**
   * The caller's roles: the token's roles claim (`auth.oidc[].rolesClaim`) or the API key's `roles`. Tenant rules may
   * name them (`tenants.<id>.roles`, `tenants.<id>.approvers`); a run records them in its settings.
   */
  roles?: string[];
}

export interface StartRunRequest {
  input: string;
  threadId?: string;
  /** "provider:model"; default: the configured model. */
  model?: string;
  strategy?: string;
  dryRun?: boolean;
  /** Values for injected arguments (`{{context.*}}`); never shown to the model. */
  context?: JsonObject;
  metadata?: JsonObject;
  maxSteps?: number;
  /** Offer the built-in todo tools (default: the configured `todo.enabled`). */
  todo?: boolean;
  /**
   * Earlier messages of the conversation, used instead of the thread's history (chat protocols send the whole
   * conversation with each request). An empty `input` adds no user message (the conversation ends with tool results).
   */
  history?: Message[];
  /** Tools the caller runs itself (see RunSettings.clientTools); the `react` strategy only. */
  clientTools?: ModelToolDefinition[];
  /** The request's W3C `traceparent` header: the run's spans continue that trace. */
  traceparent?: string;
}

/** What a fork may change of the original run's settings; each as POST /v1/runs takes it. Absent: the original's. */
export interface ForkSettings {
  /** A strategy name (react, plan, reflect, auto); an unknown one → `usage`. */
  strategy?: string;
  maxSteps?: number;
  toolMode?: 'native' | 'prompted' | 'auto';
  /** "provider:model": the same allowed-model rules as a new run (`model_not_allowed`). */
  model?: string;
  dryRun?: boolean;
  /** Offer the built-in todo tools. */
  todo?: boolean;
}

/**
 * A new run from a prefix of another's log: its events up to `afterEventId` (at or after the run's first user message,
 * before its end), then driven live under the original's settings with `settings` over them.
 */
export interface ForkRunRequest {
  afterEventId: number;
  settings?: ForkSettings;
  /** The request's W3C `traceparent` header: the fork's spans continue that trace. */
  traceparent?: string;
}

export interface IdempotencyOptions {
  key: string;
  /** Hash of the canonical request body. */
  requestHash: string;
}

/**
 * A tool as one tenant may use it; `available: false` while its server is down.
 * `approval`, `injected` and `untrusted` come from the resolved tool policy:
 * whether a call waits for a person, the argument names the server fills in
 * (from `inject`, never shown to the model), and whether its output is treated
 * as untrusted.
 */
export type TenantTool = ToolSpec & {
  effect: ToolEffect;
  available: boolean;
  approval: 'required' | 'auto' | 'never';
  injected: string[];
  untrusted: boolean;
};

/** The models a caller may choose: `default` is what a run without `model` gets; entries may be patterns with `*`. */
export interface ModelChoices {
  default?: string;
  models: string[];
}

/**
 * GET /v1/runs: the store's filters plus two applied by the service while it
 * reads the store's pages: `strategy` (the run's settings) and `q` (a
 * case-insensitive substring of the run's input or id).
 */
export type RunListQuery = Omit<ListRunsQuery, 'tenantId'> & { strategy?: RunStrategyLabel; q?: string };

/** The tools a tenant may use, and the state of every tool server. */
export interface ToolsView {
  tools: TenantTool[];
  servers: ToolSourceHealth[];
}

/** Whether the service takes runs, and why not; `servers`: each tool server's state. */
export interface Readiness {
  ready: boolean;
  reason?: string;
  servers?: ToolSourceHealth[];
}

/**
 * What the runs API needs from the rest of toolgate: start runs in the
 * background, answer approvals, cancel, list tools per tenant. The HTTP layer
 * (src/server/) depends on this port only; src/app/ provides the implementation.
 *
 * Tenant isolation: every method taking a Caller treats another tenant's run as
 * nonexistent (`not_found`), never as forbidden.
 */
export interface RunService {
  /**
   * Creates a run (status `queued`) with its settings and schedules it; a full
   * queue → `overloaded` (details.retryAfterSeconds), creating nothing. With `idempotency`, the
   * same key and body return the existing run (`created: false`); the same key
   * with another body rejects with `idempotency_mismatch`.
   */
  startRun(
    caller: Caller,
    request: StartRunRequest,
    idempotency?: IdempotencyOptions,
  ): Promise<{ run: Run; created: boolean }>;
  getRun(caller: Caller, runId: string): Promise<Run | undefined>;
  /**
   * One page of the caller's runs, newest first. With `strategy` or `q`, the
   * page holds the matching runs and `nextCursor` continues after the last run
   * examined, so a page may hold fewer than `limit` runs and still have a next one.
   */
  listRuns(caller: Caller, query: RunListQuery): Promise<RunPage>;
  /**
   * Delivers client input: an approval decision for the pending call (a call
   * that is not pending → `conflict`) or a message. Returns the run after the
   * input was recorded: after a decision, `running` without `pendingApproval`.
   */
  submitInput(caller: Caller, runId: string, input: RunInput): Promise<Run>;
  /**
   * Records a cancel request; the run's owner (in any process sharing the
   * store) aborts model and tool calls in flight and ends it `cancelled`.
   * Cancelling a finished run → `conflict`.
   */
  /** `reason` is recorded with the cancellation (default: "cancelled by a client"). */
  cancelRun(caller: Caller, runId: string, reason?: string): Promise<Run>;
  /**
   * Forks a run the caller can see: a new run (same input, tenant, user, context; no thread; `metadata.forkOf`) whose
   * log starts with copies of the original's events up to `afterEventId` — its conversation, decided approvals
   * included, not its life (status changes, cancel requests, a pending approval: asked again) — then `run_forked`;
   * it is scheduled like a new run and driven live from there. The original is never written. An id outside the
   * run's conversation → `usage` naming the valid range; a run that has not started → `conflict`.
   */
  forkRun(caller: Caller, runId: string, request: ForkRunRequest): Promise<{ run: Run }>;
  /** The caller's tools (of servers that are down too, marked unavailable) and each server's state. */
  listTools(caller: Caller): Promise<ToolsView>;
  /** The models the caller's tenant may choose (`models:`, narrowed by `tenants.<id>.models`), and the default. */
  listModels(caller: Caller): Promise<ModelChoices>;
  /** Ready to take runs: store reachable, not shutting down, at least one tool server up when there are any. */
  ready(): Promise<Readiness>;
}
