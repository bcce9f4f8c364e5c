/**
 * How a streamed answer's events travel: server-sent events (OpenAI-compatible
 * APIs, Anthropic) or newline-delimited JSON (Ollama's native API). A provider
 * names one; defineHttpAdapter asks for it, recognises it and reads it.
 */
import { ToolgateError } from '../../core/errors.ts';
import type { AnswerBody } from './http-answer.ts';
import { readLines } from './ndjson-reader.ts';
import { readSseEvents, type SseEvent } from './sse-reader.ts';

export interface FramingReadOptions {
  /** Largest single event (or line), in bytes. */
  maxEventBytes: number;
  /** Largest whole stream, in bytes as received. */
  maxBytes: number;
  signal: AbortSignal;
  /** The config key named in limit messages. */
  provider: string;
  /** True once the stream's last event came: the rest of the body is drained and reading ends. */
  finished: () => boolean;
}

export interface EventFraming<E> {
  /** The `accept` header of a streaming request. */
  readonly accept: string;
  /** How a streamed body is named in the error for a stream without one. */
  readonly noun: string;
  /**
   * Whether an answer with this Content-Type (as sent), to a request that did or did not stream, is read as a stream.
   */
  isStream(contentType: string, streaming: boolean): boolean;
  /** Hands each event of the body to `each` as soon as it is complete. */
  read(body: AnswerBody, options: FramingReadOptions, each: (event: E) => void): Promise<void>;
}

/** Server-sent events: some proxies stream whatever was asked, so the Content-Type alone decides. */
export const SSE_FRAMING: EventFraming<SseEvent> = {
  accept: 'text/event-stream',
  noun: 'an event stream',
  isStream: (contentType) => contentType.includes('text/event-stream'),
  read: (body, options, each) => readSseEvents(body, options, each),
};

/**
 * NDJSON lines. Ollama streams as application/x-ndjson and answers `stream:
 * false` (or an error) as application/json; without either word the request decides.
 */
export const NDJSON_FRAMING: EventFraming<string> = {
  accept: 'application/x-ndjson',
  noun: 'a stream',
  isStream: (contentType, streaming) => {
    const type = contentType.toLowerCase();
    return type.includes('ndjson') || (streaming && !type.includes('json'));
  },
  read: (body, options, each) => readLines(body, { ...options, maxLineBytes: options.maxEventBytes }, each),
};

/**
 * The JSON of one streamed event, or a model_error quoting at most 200
 * characters of it; `what` names the piece ("a line", "an event's data").
 */
export function parseStreamData(
  text: string,
  input: { url: string; what: string; parse?: (text: string) => unknown },
): unknown {
  try {
    return (input.parse ?? JSON.parse)(text);
  } catch {
    throw new ToolgateError(
      'model_error',
      `malformed stream from ${input.url}: ${input.what} is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
    );
  }
}
