import { SseParser, ToolgateError, type SseEvent } from '../core/index.ts';

/** One server-sent event as the runs API sends it (`event` is "message" when unnamed). */
export type SseMessage = SseEvent;

/**
 * Largest single event accepted from a server: a run's events are far smaller; a server that sends more is not a
 * toolgate server.
 */
export const RUNS_SSE_MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** The messages of a response body, until it ends (or the reader stops asking). */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxEventBytes = RUNS_SSE_MAX_EVENT_BYTES,
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser({
    maxEventBytes,
    tooLarge: (limit) =>
      new ToolgateError('internal', `the server sent an event larger than ${limit} bytes; is this a toolgate server?`),
  });
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    // An event cut off by the end of the stream is dropped (no parser.end()), as EventSource does.
    yield* parser.push(decoder.decode());
  } finally {
    // A reader that stopped early lets the connection go.
    await reader.cancel().catch(() => undefined);
  }
}
