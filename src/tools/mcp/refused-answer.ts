/**
 * What toolgate hands the MCP client in place of an answer it would not take
 * whole: a JSON-RPC error for the same id, so the request it answers settles
 * at once (nothing hangs until its timeout) and every other request on the
 * connection goes on. The error's `data` says what happened; McpToolSource
 * and McpPassthrough turn a too-large answer into a result cut to what was
 * read (`truncated`), as a result over the size limit is cut anyway.
 */
import { isJsonObject, type JsonObject } from '../../core/index.ts';
import { errorField } from './error-fields.ts';
import type { JsonRpcId, ScanVerdict } from './message-scanner.ts';

/** The `data` key of the error that stands for a refused answer. */
export const REFUSED_ANSWER_KEY = 'toolgate/refusedAnswer';
/** JSON-RPC "internal error": the answer was there, toolgate would not take it. */
const INTERNAL_ERROR = -32603;

export interface RefusedAnswer {
  reason: 'too_large' | 'too_deep';
  /** The answer's size. */
  bytes: number;
  /** too_large: the bytes read of one message; too_deep: the levels allowed. */
  limit: number;
  /** The `result.isError` it carried, when it said. */
  isError?: boolean;
  /** too_large: the result as far as it was read (a text cut, what was open closed). */
  partial?: JsonObject;
}

export interface SubstituteLimits {
  keepBytes: number;
  maxDepth: number;
}

/**
 * The message that stands for a refused one: an error answer to its id, or undefined when it answers nothing (a request
 * or notification of the server, or no id was found).
 */
export function substituteFor(
  verdict: Extract<ScanVerdict, { kind: 'refused' }>,
  limits: SubstituteLimits,
): { jsonrpc: '2.0'; id: JsonRpcId; error: { code: number; message: string; data: JsonObject } } | undefined {
  if (verdict.isRequest || verdict.id === undefined) return undefined;
  const refused: RefusedAnswer =
    verdict.reason === 'too_deep'
      ? // The result's own levels: the message around it is one more.
        { reason: 'too_deep', bytes: verdict.bytes, limit: limits.maxDepth - 1 }
      : { reason: 'too_large', bytes: verdict.bytes, limit: limits.keepBytes, ...partialOf(verdict.head) };
  if (verdict.isError !== undefined) refused.isError = verdict.isError;
  return {
    jsonrpc: '2.0',
    id: verdict.id,
    error: { code: INTERNAL_ERROR, message: describeRefusal(refused), data: { [REFUSED_ANSWER_KEY]: { ...refused } } },
  };
}

/** Why a message of the server was dropped (one that answers no request), for the transport's error handler. */
export function droppedMessage(verdict: Extract<ScanVerdict, { kind: 'refused' }>, limits: SubstituteLimits): Error {
  const what = verdict.isRequest
    ? 'a request or notification from the server'
    : 'a message from the server that names no request';
  const why =
    verdict.reason === 'too_deep'
      ? `nests deeper than ${limits.maxDepth} levels`
      : `is ${verdict.bytes} bytes, more than the ${limits.keepBytes} read of one message`;
  return new Error(`dropped ${what}: it ${why}`);
}

/** The refusal an error from the MCP client stands for, if it is one. */
export function refusedAnswerOf(error: unknown): RefusedAnswer | undefined {
  const data = errorField(error, 'data');
  const refused = isJsonObject(data) ? data[REFUSED_ANSWER_KEY] : undefined;
  if (!isJsonObject(refused) || (refused['reason'] !== 'too_large' && refused['reason'] !== 'too_deep'))
    return undefined;
  if (typeof refused['bytes'] !== 'number' || typeof refused['limit'] !== 'number') return undefined;
  return {
    reason: refused['reason'],
    bytes: refused['bytes'],
    limit: refused['limit'],
    ...(typeof refused['isError'] === 'boolean' ? { isError: refused['isError'] } : {}),
    ...(isJsonObject(refused['partial']) ? { partial: refused['partial'] } : {}),
  };
}

export function describeRefusal(refused: RefusedAnswer): string {
  if (refused.reason === 'too_deep') {
    return (
      `the server's answer nests deeper than ${refused.limit} levels, the ` +
      `limit for tool output; it was refused (the server did get the request)`
    );
  }
  return (
    `the server's answer was ${refused.bytes} bytes, more than the ${refused.limit} ` +
    `bytes read of one message (see maxResultBytes); the rest was not read`
  );
}

function partialOf(head: unknown): { partial?: JsonObject } {
  if (!isJsonObject(head)) return {};
  const result = head['result'];
  return isJsonObject(result) ? { partial: result } : {};
}
