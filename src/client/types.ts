import type {
  ForkSettings,
  JsonObject,
  JsonValue,
  PendingApproval,
  Run,
  RunListQuery,
  RunStrategyLabel,
  StartRunRequest,
} from '../core/index.ts';

/** Anything shaped like the global fetch (a test double, a fetch through a proxy, …). */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

/** A request as the client is about to send it, for headers computed per request. */
export interface OutgoingRequest {
  method: string;
  url: string;
}

export interface ToolgateClientOptions {
  /**
   * The server's root: `http://127.0.0.1:8787` (a path prefix behind a proxy is kept); in a page the server serves,
   * `location.origin`.
   */
  url: string;
  /**
   * Sent as `Authorization: Bearer <key>`. A page signed in with a session cookie sends none. `undefined` is taken as
   * none, so `process.env.TOOLGATE_API_KEY` can be given as it is.
   */
  apiKey?: string | undefined;
  /** Default: the global fetch. */
  fetch?: FetchFunction;
  /** Extra headers on every request, or a function returning them per request. */
  headers?:
    Readonly<Record<string, string>> | ((request: OutgoingRequest) => Readonly<Record<string, string>> | undefined);
  /** fetch's `credentials`: `same-origin` sends the console's session cookie. */
  credentials?: 'omit' | 'same-origin' | 'include';
  /**
   * The session's CSRF token (from signIn or getSession), sent as `X-CSRF-Token` on every request other than GET:
   * a request authenticated by the session cookie needs it. Asked for each request, so a new sign-in is picked up.
   */
  csrfToken?: () => string | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** The body of POST /v1/runs: the fields the runs API accepts (docs/server.md). */
export type CreateRunRequest = Pick<
  StartRunRequest,
  'input' | 'threadId' | 'model' | 'strategy' | 'dryRun' | 'context' | 'metadata' | 'maxSteps' | 'todo'
>;

export interface CreateRunOptions extends RequestOptions {
  /** Same key and body → the same run (200 instead of 201); same key, another body → 422 idempotency_mismatch. */
  idempotencyKey?: string;
  /** A W3C trace context: the run's spans continue that trace. */
  traceparent?: string;
}

/** POST /v1/runs/{id}/fork: where to fork the run, and what to change of its settings (docs/server.md). */
export interface ForkOptions extends RequestOptions {
  /** The last event of the original the fork copies: from its first user_message to the event before its end. */
  afterEventId: number;
  /** Absent fields keep the original's: strategy, maxSteps, toolMode, model, dryRun, todo. */
  settings?: ForkSettings;
  /** A W3C trace context: the fork's spans continue that trace. */
  traceparent?: string;
}

/** Fields GET /v1/runs may be asked for (`fields=`); `id` is always there. */
export type RunSummaryField =
  | 'id'
  | 'status'
  | 'model'
  | 'strategy'
  | 'createdAt'
  | 'updatedAt'
  | 'tenantId'
  | 'userId'
  | 'threadId'
  | 'input'
  | 'output'
  | 'error'
  | 'usage'
  | 'steps'
  | 'lastEventId'
  | 'dryRun'
  | 'pendingApproval'
  | 'metadata';

/**
 * A run as GET /v1/runs lists it: `input`, `output` and an error message cut to 200 characters (those named in
 * `truncated`), the pending call without its arguments, `strategy` as a label, no `context`; `metadata` only when
 * asked for in `fields` (and any field only when asked for, when `fields` is given).
 */
export type RunSummary = Partial<
  Pick<
    Run,
    | 'status'
    | 'model'
    | 'createdAt'
    | 'updatedAt'
    | 'tenantId'
    | 'userId'
    | 'threadId'
    | 'input'
    | 'output'
    | 'error'
    | 'usage'
    | 'steps'
    | 'lastEventId'
    | 'dryRun'
    | 'metadata'
  >
> & {
  id: string;
  strategy?: RunStrategyLabel;
  pendingApproval?: Omit<PendingApproval, 'arguments'>;
  truncated?: string[];
};

/** GET /v1/runs: status, threadId, strategy, q (a part of the input or id), limit, cursor, and the fields wanted. */
export type ListRunsQuery = RunListQuery & { fields?: readonly RunSummaryField[] };

/** One page, newest first. A page may hold fewer runs than `limit` (even none) and still have a `nextCursor`. */
export interface RunsPage {
  runs: RunSummary[];
  nextCursor?: string;
}

export interface ReadEventsOptions extends RequestOptions {
  /** Only events after this sequence number. */
  after?: number;
}

export interface DecisionOptions extends RequestOptions {
  /** The pending call's id (a whole plan waiting: its `planId`). */
  toolCallId: string;
  /** Recorded with the decision; on a rejection, the model is told. */
  reason?: string;
}

export interface EditOptions extends DecisionOptions {
  /** The arguments to call the tool with instead of the model's. */
  arguments: JsonObject;
}

export interface MarkDoneOptions extends DecisionOptions {
  /** What the person saw of the call that did happen (only for a call whose outcome is unknown). */
  result?: JsonValue;
}

export interface CancelOptions extends RequestOptions {
  /** At most 500 characters; recorded in `cancel_requested` and `run_cancelled`. */
  reason?: string;
}

/** GET /v1/session. */
export interface SessionInfo {
  authenticated: boolean;
  keysRequired: boolean;
  tenantId?: string;
  userId?: string;
  /** The caller's roles (the API key's `roles`, or the token's roles claim). */
  roles?: string[];
  csrfToken?: string;
  expiresAt?: string;
}

/** POST /v1/session: the signed-in caller, or `anonymous` when the server has no API keys. */
export interface SignedIn {
  anonymous?: boolean;
  tenantId?: string;
  userId?: string;
  roles?: string[];
  csrfToken: string;
  expiresAt?: string;
}

/** GET /v1/stats (ToolgateClient.getStats): the live statistics' answer and its parts, as the server defines them. */
export type {
  ArmFigures,
  LatencyFigures,
  RolloutFigures,
  StatsFigures,
  StatsFilter,
  StatsKey,
  StatsRow,
  StatsSnapshot,
} from '../core/index.ts';
