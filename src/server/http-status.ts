import type { ErrorCode } from '../core/errors.ts';

/**
 * The one table from error codes to HTTP statuses. `satisfies Record<ErrorCode, …>`
 * makes a new code in core/errors.ts a type error here until it is given a status.
 * Codes a run or a tool result carries (max_steps, tool_*) never reach a response
 * on their own; when one does, something went wrong on our side: 500.
 */
export const HTTP_STATUS_BY_CODE = {
  usage: 400,
  // config_invalid reaches HTTP only for request bodies that break a schema.
  config_invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_mismatch: 422,
  overloaded: 429,
  internal: 500,
  shutting_down: 503,
  // The database is gone for the moment (connection lost, refused, locked, disk full): the same request succeeds once
  // it is back.
  store_unavailable: 503,
  model_not_allowed: 400,
  // The model API is an upstream: its failures are gateway errors, except where
  // the client can act on them (they reach a response only with ?wait=first-turn).
  model_auth: 401,
  model_not_found: 502,
  model_bad_request: 502,
  model_rate_limited: 429,
  model_unavailable: 502,
  model_error: 502,
  model_timeout: 504,
  // The model API refused tool definitions: an upstream's answer, like model_bad_request.
  tools_unsupported: 502,
  max_steps: 500,
  cancelled: 500,
  unparseable_tool_call: 500,
  // Internal to run ownership: another process drives the run now.
  lease_lost: 409,
  tool_error: 500,
  tool_timeout: 500,
  // Reaches a response when no tool server can be listed as a run is created.
  tool_unavailable: 503,
  tool_not_found: 500,
  invalid_arguments: 500,
  denied: 500,
  rejected: 500,
  outcome_unknown: 500,
  skipped: 500,
  rate_limited: 429,
  session_lost: 500,
  // A decision link that worked once and no longer does: gone, not missing.
  link_expired: 410,
  // Runtime guard and strategy endings: carried by run_failed, never a response of their own.
  budget_tool_calls: 500,
  budget_tokens: 500,
  budget_time: 500,
  budget_cost: 500,
  tool_failures: 500,
  loop_detected: 500,
  tool_latency_p95: 500,
  conflicting_evidence: 500,
  gave_up: 500,
} as const satisfies Record<ErrorCode, number>;

export function httpStatusFor(code: ErrorCode): number {
  return HTTP_STATUS_BY_CODE[code];
}
