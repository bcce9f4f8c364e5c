// A small server-sent events client for tests: parses the wire format as the
// WHATWG spec describes it (fields, comments, CR/LF/CRLF line ends, multi-line
// data), so tests check what a browser's EventSource would see.

export interface SseMessage {
  /** The `id:` of this message, when it had one. */
  id?: string;
  /** The `event:` name, when it had one (EventSource would say "message"). */
  event?: string;
  /** `data:` lines joined with "\n". */
  data: string;
}

export interface ReadSseOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Default GET; POST with `body` for `POST /v1/runs?stream=true`. */
  method?: string;
  body?: string;
  /** Called for every comment line (`: ping` → "ping"). */
  onComment?: (text: string) => void;
}

/**
 * Opens an SSE response and yields its messages until the server ends the stream. Non-200 or non-SSE responses throw
 * with the body.
 */
export async function* readSse(url: string, options: ReadSseOptions = {}): AsyncGenerator<SseMessage> {
  const init: RequestInit = {
    method: options.method ?? 'GET',
    headers: { Accept: 'text/event-stream', ...options.headers },
  };
  if (options.signal !== undefined) init.signal = options.signal;
  if (options.body !== undefined) init.body = options.body;
  const response = await fetch(url, init);
  const type = response.headers.get('content-type') ?? '';
  if (response.status !== 200 || !type.startsWith('text/event-stream') || response.body === null) {
    throw new Error(`expected an SSE stream from ${url}, got ${response.status} ${type}: ${await response.text()}`);
  }
  yield* parseSse(response.body, options.onComment === undefined ? {} : { onComment: options.onComment });
}

/** Reads a whole stream into an array (the server must end it: a terminal event, overflow, shutdown). */
export async function collectSse(url: string, options: ReadSseOptions = {}): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(url, options)) messages.push(message);
  return messages;
}

/** Parses SSE from any byte or text chunks (a fetch body, a raw socket). */
export async function* parseSse(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options: { onComment?: (text: string) => void } = {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let first = true;
  let pending: { id?: string; event?: string; data: string[] } = { data: [] };

  const takeLine = (line: string): SseMessage | undefined => {
    if (line === '') {
      const message = dispatch(pending);
      pending = { data: [] };
      return message;
    }
    if (line.startsWith(':')) {
      options.onComment?.(line.slice(1).replace(/^ /, ''));
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') pending.data.push(value);
    else if (field === 'event') pending.event = value;
    else if (field === 'id' && !value.includes('\u0000')) pending.id = value;
    return undefined;
  };

  for await (const chunk of chunks) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && buffer.length > 0) {
      if (buffer.startsWith('\uFEFF')) buffer = buffer.slice(1);
      first = false;
    }
    // A trailing CR may be the first half of CRLF: leave it for the next chunk.
    let match: RegExpExecArray | null;
    const lineEnd = /\r\n|\r(?!$)|\n/g;
    let consumed = 0;
    while ((match = lineEnd.exec(buffer)) !== null) {
      const message = takeLine(buffer.slice(consumed, match.index));
      consumed = match.index + match[0].length;
      if (message !== undefined) yield message;
    }
    buffer = buffer.slice(consumed);
  }
  buffer += decoder.decode();
  // Per the spec an unterminated last message is dropped; a lone trailing CR still ends its line.
  if (buffer.endsWith('\r')) {
    const message = takeLine(buffer.slice(0, -1));
    if (message !== undefined) yield message;
  }
}

/** As EventSource does, a block without data (only an id, or an empty data line) dispatches nothing. */
function dispatch(pending: { id?: string; event?: string; data: string[] }): SseMessage | undefined {
  if (pending.data.join('\n') === '') return undefined;
  const message: SseMessage = { data: pending.data.join('\n') };
  if (pending.id !== undefined) message.id = pending.id;
  if (pending.event !== undefined) message.event = pending.event;
  return message;
}
