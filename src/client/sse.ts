/**
 * The events of a response body, read with core's incremental parser (the WHATWG rules: `id`, `event`, `data`,
 * comments, multi-line data, CRLF, CR or LF line ends, a byte order mark; chunks split anywhere). No `node:` import:
 * it runs in browsers.
 */
import { SseParser, type SseEvent, type SseParserOptions } from '../core/sse-parser.ts';

/** One dispatched event: `event` is "message" when the stream named none; `id` is the last id the stream set. */
export type SseMessage = SseEvent;

/** Largest event accepted: a run's events are far smaller; a server that sends more is not a toolgate server. */
export const DEFAULT_SSE_MAX_EVENT_BYTES = 16 * 1024 * 1024;

export type SseOptions = SseParserOptions;

/**
 * The events of a response body until it ends. An event cut off by the end of the stream is dropped, as
 * EventSource does. A reader that stops early (a `break`) cancels the body, which lets the connection go.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, options: SseOptions = {}): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser({
    maxEventBytes: options.maxEventBytes ?? DEFAULT_SSE_MAX_EVENT_BYTES,
    tooLarge: options.tooLarge ?? ((limit) => new Error(`the server sent an event larger than ${limit} bytes`)),
  });
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    // Not parser.end(): an event the connection cut off is dropped (the follower resumes after the last whole one).
    yield* parser.push(decoder.decode());
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
