/**
 * A `text/event-stream` parser (WHATWG HTML "server-sent events" rules), fed
 * incrementally. Network chunks split a stream anywhere — inside a line, between
 * `\r` and `\n`, inside a multi-byte character — so nothing here assumes a chunk
 * holds whole lines.
 */

/** One dispatched event. `event` is "message" unless the stream named it. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Incremental parser: `push` text as it arrives, `end` once the stream closes. */
export class SseParser {
  #buffer = '';
  /** A chunk ended in `\r`: a following `\n` belongs to the same line break. */
  #pendingCr = false;
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (text === '') return out;
    let start = 0;
    if (this.#pendingCr && text.startsWith('\n')) start = 1;
    this.#pendingCr = false;
    let i = start;
    while (i < text.length) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) {
        i += 1;
        continue;
      }
      this.#line(this.#buffer + text.slice(start, i), out);
      this.#buffer = '';
      if (ch === 13) {
        if (i + 1 === text.length) this.#pendingCr = true;
        else if (text.charCodeAt(i + 1) === 10) i += 1;
      }
      i += 1;
      start = i;
    }
    this.#buffer += text.slice(start);
    return out;
  }

  /**
   * Flushes what is left. The spec drops an event without its closing blank
   * line; some servers omit it before closing, so a pending event is kept.
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#buffer !== '') this.#line(this.#buffer, out);
    this.#buffer = '';
    this.#dispatch(out);
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.#dispatch(out);
      return;
    }
    if (line.startsWith(':')) return; // comment, e.g. OpenRouter's ": OPENROUTER PROCESSING"
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      default:
        break; // `retry` and unknown fields do not matter to a one-shot request
    }
  }

  #dispatch(out: SseEvent[]): void {
    if (this.#data.length > 0) {
      const event: SseEvent = { event: this.#event === '' ? 'message' : this.#event, data: this.#data.join('\n') };
      if (this.#id !== undefined) event.id = this.#id;
      out.push(event);
    }
    this.#data = [];
    this.#event = '';
  }
}

/** Reads a response body as server-sent events, decoding UTF-8 across chunk boundaries. */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  let done = false;
  try {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) break;
      yield* parser.push(decoder.decode(chunk.value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
    done = true;
  } finally {
    // A consumer that stops early (error, abort) must not leave the socket open.
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
