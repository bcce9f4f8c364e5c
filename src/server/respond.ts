import type { ServerResponse } from 'node:http';
import { ToolgateError, type ErrorCode, type ErrorInfo } from '../core/errors.ts';
import { httpStatusFor } from './http-status.ts';

/**
 * A ToolgateError whose HTTP status is not the code's usual one: protocol-level
 * refusals (405, 413, 415) that still carry a code from the closed set.
 */
export class HttpError extends ToolgateError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(options: { status: number; code: ErrorCode; message: string; headers?: Record<string, string> }) {
    super(options.code, options.message);
    this.name = 'HttpError';
    this.status = options.status;
    this.headers = options.headers ?? {};
  }
}

export interface ErrorResponse {
  status: number;
  body: { error: ErrorInfo };
  headers: Record<string, string>;
}

/** The response for anything thrown. Unexpected errors keep their details out of the body. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError) {
    return { status: error.status, body: { error: error.toInfo() }, headers: { ...error.headers } };
  }
  if (error instanceof ToolgateError) {
    const headers: Record<string, string> = error.code === 'unauthorized' ? { 'WWW-Authenticate': 'Bearer' } : {};
    // overloaded, shutting_down: when to come back, in whole seconds (RFC 9110 Retry-After).
    const retryAfter = error.details?.['retryAfterSeconds'];
    if (typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0)
      headers['Retry-After'] = String(Math.ceil(retryAfter));
    return { status: httpStatusFor(error.code), body: { error: error.toInfo() }, headers };
  }
  return {
    status: 500,
    body: { error: { code: 'internal', message: 'internal server error (see the server log)' } },
    headers: {},
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonResponse(res, { status, body, headers: {} });
}

/** A JSON answer with headers of its own (Location, Retry-After…). */
export function sendJsonResponse(
  res: ServerResponse,
  response: { status: number; body: unknown; headers: Readonly<Record<string, string>> },
): void {
  const { status, body, headers } = response;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: unknown): ErrorResponse {
  const response = toErrorResponse(error);
  sendJsonResponse(res, response);
  return response;
}
