/** One server-sent event as the runs API sends it. */
export interface SseMessage {
  id?: string;
  event?: string;
  /** `data:` lines joined with "\n". */
  data: string;
}

/**
 * An incremental parser of the SSE wire format (WHATWG): fields, comments,
 * CR / LF / CRLF line ends, multi-line data. Feed it text as it arrives;
 * it returns the messages each piece completes.
 */
export class SseParser {
  #buffer = '';
  #first = true;
  #pending: { id?: string; event?: string; data: string[] } = { data: [] };

  push(text: string): SseMessage[] {
    this.#buffer += text;
    if (this.#first && this.#buffer.length > 0) {
      // A byte order mark may start the stream.
      if (this.#buffer.charCodeAt(0) === 0xfeff) this.#buffer = this.#buffer.slice(1);
      this.#first = false;
    }
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      // A lone CR at the end may be the first half of a CRLF: wait for more.
      if (match === null || (match[0] === '\r' && match.index === this.#buffer.length - 1)) return out;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const message = this.#line(line);
      if (message !== undefined) out.push(message);
    }
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') {
      const { id, event, data } = this.#pending;
      this.#pending = { data: [] };
      if (data.length === 0) return undefined;
      return { data: data.join('\n'), ...(id === undefined ? {} : { id }), ...(event === undefined ? {} : { event }) };
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#pending.data.push(value);
    else if (field === 'event') this.#pending.event = value;
    else if (field === 'id' && !value.includes('\u0000')) this.#pending.id = value;
    return undefined;
  }
}

/** The messages of a response body, until it ends (or the reader stops asking). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    // An event cut off by the end of the stream is dropped, as EventSource does.
    yield* parser.push(decoder.decode());
  } finally {
    // A reader that stopped early lets the connection go.
    await reader.cancel().catch(() => undefined);
  }
}
