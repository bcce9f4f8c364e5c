import type { ErrorCode } from '../core/errors.ts';

/**
 * The `code` of a ToolgateApiError: one of toolgate's error codes (docs/server.md), or `http_error` when the answer
 * was not toolgate's error body (a proxy's page, another server). Any string is accepted, so a newer server's code
 * still reads.
 */
export type ApiErrorCode = ErrorCode | 'http_error' | (string & {});

export interface ToolgateApiErrorOptions {
  status: number;
  code: ApiErrorCode;
  message: string;
  /** The request: its method and whole URL. */
  method: string;
  url: string;
  issues?: readonly unknown[];
  runId?: string;
  retryAfterSeconds?: number;
  /** The start of a body that was not toolgate's error JSON. */
  body?: string;
}

/**
 * The server answered with an error status. For toolgate's own errors (`{"error": {"code", "message"}}`) `code` and
 * `message` are the server's; `runId` names the run the request was about.
 */
export class ToolgateApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly method: string;
  readonly url: string;
  readonly issues: readonly unknown[] | undefined;
  readonly runId: string | undefined;
  /** From `Retry-After` (429, 503): when to try again. */
  readonly retryAfterSeconds: number | undefined;
  readonly body: string | undefined;

  constructor(options: ToolgateApiErrorOptions) {
    super(options.message);
    this.name = 'ToolgateApiError';
    this.status = options.status;
    this.code = options.code;
    this.method = options.method;
    this.url = options.url;
    this.issues = options.issues;
    this.runId = options.runId;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.body = options.body;
  }
}

/**
 * Why a request got no usable answer: `usage` (the client was given something it cannot use), `unreachable` (no
 * connection: the server is down, the URL is wrong, the network failed), `unexpected_answer` (a success that is not
 * the runs API's answer: another server at that URL), `stream_gave_up` (an event stream that kept ending without a
 * new event, past the retries allowed).
 */
export type ClientErrorReason = 'usage' | 'unreachable' | 'unexpected_answer' | 'stream_gave_up';

export interface ToolgateClientErrorOptions {
  reason: ClientErrorReason;
  message: string;
  /** The server's root URL the client was made for. */
  serverUrl?: string;
  /** The route asked, as `GET /v1/runs/{id}`. */
  route?: string;
  runId?: string;
  cause?: unknown;
}

/** A request that got no answer from toolgate's runs API (see ClientErrorReason); `cause` holds what was thrown. */
export class ToolgateClientError extends Error {
  readonly reason: ClientErrorReason;
  readonly serverUrl: string | undefined;
  readonly route: string | undefined;
  readonly runId: string | undefined;

  constructor(options: ToolgateClientErrorOptions) {
    super(options.message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'ToolgateClientError';
    this.reason = options.reason;
    this.serverUrl = options.serverUrl;
    this.route = options.route;
    this.runId = options.runId;
  }
}
