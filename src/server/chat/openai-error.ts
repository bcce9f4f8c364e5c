import type { ServerResponse } from 'node:http';
import { sendJsonResponse, toErrorResponse, type ErrorResponse } from '../respond.ts';

/** OpenAI's error body: the official SDKs read `type` and `code`, and raise by HTTP status. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: null; code: string };
}

/** OpenAI's error `type` for an HTTP status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  // An upstream (the model API) failed or timed out.
  if (status === 502 || status === 504) return 'api_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function openAiErrorBody(error: { code: string; message: string }, status: number): OpenAiErrorBody {
  return { error: { message: error.message, type: openAiErrorType(status), param: null, code: error.code } };
}

/**
 * The response for anything thrown on an OpenAI-compatible route: the status
 * and headers of toolgate's table (toErrorResponse), the body in OpenAI's shape
 * with toolgate's code as `code`.
 */
export function sendOpenAiError(res: ServerResponse, error: unknown): ErrorResponse {
  const response = toErrorResponse(error);
  sendJsonResponse(res, { ...response, body: openAiErrorBody(response.body.error, response.status) });
  return response;
}
