/**
 * Model streams as server-sent events: the parser (core) with this provider's
 * limits and their `model_error`, over a response body.
 */
import { SseParser as CoreSseParser, type SseEvent, type SseParserOptions as CoreOptions } from '../../core/index.ts';
import { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_STREAM_BYTES, limitExceeded } from './limits.ts';
import type { AnswerBody } from './http-answer.ts';
import { readBodyItems } from './read-body.ts';

export type { SseEvent };

export interface SseParserOptions {
  /** Largest event (its data lines) or single line, in UTF-8 bytes. */
  maxEventBytes?: number;
  /** The config key named in limit messages (default openai). */
  provider?: string;
}

/** The SSE parser with the provider's event limit (providers.<name>.maxEventBytes) and its model_error. */
export class SseParser extends CoreSseParser {
  constructor(options: SseParserOptions = {}) {
    const options_: CoreOptions = {
      maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
      tooLarge: (limit) =>
        limitExceeded({
          option: 'maxEventBytes',
          limit,
          what: 'one event of the stream',
          ...(options.provider === undefined ? {} : { provider: options.provider }),
        }),
    };
    super(options_);
  }
}

export interface ReadSseOptions {
  /** Largest event; see SseParserOptions. */
  maxEventBytes?: number;
  /** Largest whole stream, in bytes as received (after content decoding). */
  maxBytes?: number;
  /** Ends the read (and cancels the body) when it aborts. */
  signal?: AbortSignal;
  /** The config key named in limit messages (default openai). */
  provider?: string;
  /**
   * Asked after each event is handled: true once the stream's last event has
   * come. The rest of the body is then drained (see BodyReader.drain), so the
   * connection can be reused, and iteration ends.
   */
  finished?: () => boolean;
}

/**
 * Reads a response body as server-sent events, decoding UTF-8 across chunk
 * boundaries, and hands each event to `each` as soon as it is complete. Stops
 * early (and cancels the body, so the socket is not left open) when `each`
 * throws, on abort and at a limit.
 */
export async function readSseEvents(
  body: AnswerBody,
  options: ReadSseOptions,
  each: (event: SseEvent) => void,
): Promise<void> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const provider = options.provider === undefined ? {} : { provider: options.provider };
  const parser = new SseParser({
    ...provider,
    ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
  });
  const decoder = new TextDecoder('utf-8');
  await readBodyItems<SseEvent>(
    body,
    {
      signal: options.signal,
      maxBytes,
      finished: options.finished,
      tooLarge: () =>
        limitExceeded({ option: 'maxStreamBytes', limit: maxBytes, what: 'the streamed answer', ...provider }),
    },
    {
      parse: (chunk, emit) => parser.feed(decoder.decode(chunk, { stream: true }), emit),
      end: (emit) => {
        parser.feed(decoder.decode(), emit);
        parser.finish(emit);
      },
      each,
    },
  );
}
