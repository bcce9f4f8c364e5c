import { ToolgateError } from '../../core/errors.ts';

/**
 * Bounds on what one model call may read from an endpoint. A runaway or hostile
 * server (an endless stream, a body that keeps going, one giant event) must
 * fail its own call, never take the process's memory with it.
 */

/** A whole non-streamed answer. 128k output tokens are about 0.5 MiB of text; the rest is headroom. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/**
 * A whole streamed answer. Each token travels in its own chunk of ~250 bytes
 * of envelope, and the envelopes are dropped as they are read, so this sits
 * above the body limit without costing memory.
 */
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024 * 1024;
/**
 * One server-sent event (or one line of one). A chunk carries a few tokens; even a whole tool call in one chunk is
 * KiBs.
 */
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
/** Tool calls in one answer: models emit a handful; each one becomes a gated call downstream. */
export const DEFAULT_MAX_TOOL_CALLS = 128;
/** An error body is only quoted, truncated, in a message: reading past this is waste. */
export const DEFAULT_MAX_ERROR_BODY_BYTES = 64 * 1024;

export type LimitOption = 'maxResponseBytes' | 'maxStreamBytes' | 'maxEventBytes' | 'maxToolCalls';

/** The provider's key in the config (`providers.<name>`), named in every limit message. */
export const DEFAULT_LIMIT_PROVIDER = 'openai';

/**
 * The error for an exceeded bound. It is never retried: the same request would
 * get the same answer. It names the option, so the fix is in the message.
 */
export function limitExceeded(input: {
  option: LimitOption;
  limit: number;
  what: string;
  provider?: string | undefined;
}): ToolgateError {
  const { option, limit, what } = input;
  const provider = input.provider ?? DEFAULT_LIMIT_PROVIDER;
  const unit = option === 'maxToolCalls' ? '' : ' bytes';
  return new ToolgateError(
    'model_error',
    `${what} exceeds ${option} (${limit}${unit}); the endpoint sent more than a model ` +
      `answer should hold — if it is genuine, raise ${option} (providers.${provider}.${option})`,
    { details: { limit: option, [option]: limit } },
  );
}

/** More tool calls in one answer than maxToolCalls; `count`, when known, is how many it held. */
export function tooManyToolCalls(input: {
  limit: number;
  provider?: string | undefined;
  count?: number;
}): ToolgateError {
  const count = input.count === undefined ? '' : ` (${input.count})`;
  return limitExceeded({
    option: 'maxToolCalls',
    limit: input.limit,
    what: `the number of tool calls in the answer${count}`,
    provider: input.provider,
  });
}

/** The read limits every HTTP adapter takes (`providers.<name>.max*`). */
export interface ReadLimitOptions {
  /** Largest non-streamed response body, in bytes; more fails the call with model_error. */
  maxResponseBytes?: number;
  /** Largest streamed response, in bytes as received; more fails the call with model_error. */
  maxStreamBytes?: number;
  /** Largest single server-sent event or NDJSON line, in bytes. */
  maxEventBytes?: number;
  /** Most tool calls one answer may hold. */
  maxToolCalls?: number;
}

/** What every provider's stream assembler takes. */
export interface AssemblerOptions {
  /** Called with each piece of answer text, in order. */
  onTextDelta?: (text: string) => void;
  /** More tool calls than this fail the answer with model_error. */
  maxToolCalls?: number;
  /** The config key named in limit messages. */
  provider?: string;
}

export interface ReadLimits {
  maxResponseBytes: number;
  maxStreamBytes: number;
  maxEventBytes: number;
  maxToolCalls: number;
}

/** An adapter's read limits, defaults filled in. */
export function readLimits(options: ReadLimitOptions): ReadLimits {
  return {
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxStreamBytes: options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
    maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    maxToolCalls: options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
  };
}
