import { isOneOf } from './is-one-of.ts';

/**
 * The closed set of error codes toolgate reports. Every error a user can see —
 * in a run_failed event, a tool result, an HTTP body or a CLI message — carries
 * one of these. They are a public contract: add codes, never rename them.
 * (The HTTP status for each code lives in one table in src/server/.)
 */
export const ERROR_CODES = [
  // usage and configuration
  'usage',
  'config_invalid',
  'not_found',
  'conflict',
  'internal',
  // runs API
  'unauthorized',
  // a browser request refused: CSRF token missing, foreign Origin, or a Host that is not loopback in the no-keys mode
  'forbidden',
  'idempotency_mismatch',
  'overloaded',
  'shutting_down',
  'model_not_allowed',
  // the run store (database) cannot be reached or written right now: retry later (runs wait and are taken up again)
  'store_unavailable',
  // model adapters
  'model_auth',
  'model_not_found',
  'model_bad_request',
  'model_rate_limited',
  'model_unavailable',
  'model_timeout',
  'model_error',
  // the model or its server refuses tool definitions (native tool calls): toolMode auto falls back to prompted
  'tools_unsupported',
  // run loop
  'max_steps',
  'cancelled',
  'unparseable_tool_call',
  // runtime guard (a run ends with these when a limit is reached; see docs/strategies.md)
  'budget_tool_calls',
  'budget_tokens',
  'budget_time',
  'budget_cost',
  'tool_failures',
  'loop_detected',
  'tool_latency_p95',
  'conflicting_evidence',
  // strategies: the model's own reflection decided to stop
  'gave_up',
  // run ownership (one owner per run)
  'lease_lost',
  // tool calls (tool results carry these, a run does not fail with them)
  'tool_error',
  'tool_timeout',
  'tool_unavailable',
  'tool_not_found',
  'invalid_arguments',
  'denied',
  'rejected',
  'outcome_unknown',
  // a tool call that was part of a plan and not run because an earlier step failed
  'skipped',
  // gateway mode: a call over a rate limit (tool result), and a session whose gateway process went away (run_failed)
  'rate_limited',
  'session_lost',
  // a decision link used after its expiry (`approvals.linkTtlMs`): open the run in the console to decide
  'link_expired',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The serialisable shape of an error, as stored in events and sent to clients. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

export interface ToolgateErrorOptions {
  cause?: unknown;
  /** Extra machine-readable context (status code, retry-after, key path…). */
  details?: Record<string, unknown>;
}

export class ToolgateError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ToolgateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgateError';
    this.code = code;
    this.details = options.details;
  }

  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return isOneOf(ERROR_CODES, value);
}

/** Converts anything thrown into an ErrorInfo, keeping a ToolgateError's code. */
export function toErrorInfo(error: unknown, fallback: ErrorCode = 'internal'): ErrorInfo {
  if (error instanceof ToolgateError) return error.toInfo();
  if (error instanceof Error) return { code: fallback, message: error.message };
  return { code: fallback, message: String(error) };
}
