/**
 * Newline-delimited JSON streams (Ollama's native API): a body read as lines,
 * split on the newline byte — which never occurs inside a UTF-8 sequence —
 * so every limit is counted in bytes as received.
 */
import { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_STREAM_BYTES, limitExceeded } from './limits.ts';
import type { AnswerBody } from './http-answer.ts';
import { readBodyItems, type ItemEmit } from './read-body.ts';

export interface ReadLinesOptions {
  /** Largest single line, in bytes (the provider's maxEventBytes). */
  maxLineBytes?: number;
  /** Largest whole stream, in bytes. */
  maxBytes?: number;
  /** Ends the read (and cancels the body) when it aborts. */
  signal?: AbortSignal;
  /** The config key named in limit messages. */
  provider?: string;
  /**
   * Asked after each line is handled: true once the stream's last line has come (the rest of the body is drained; see
   * BodyReader.drain).
   */
  finished?: () => boolean;
}

const NEWLINE = 0x0a;

/**
 * Hands each non-blank line of a body to `each` as soon as it is complete, without its line ending (`\n` or `\r\n`).
 */
export async function readLines(
  body: AnswerBody,
  options: ReadLinesOptions,
  each: (line: string) => void,
): Promise<void> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const provider = options.provider === undefined ? {} : { provider: options.provider };
  const decoder = new TextDecoder('utf-8');
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;

  const takeLine = (last: Uint8Array): string | undefined => {
    const parts = [...pending, last];
    pending = [];
    pendingBytes = 0;
    const text = parts.map((part, i) => decoder.decode(part, { stream: i < parts.length - 1 })).join('');
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    return line.trim() === '' ? undefined : line;
  };
  const tooLong = (): Error =>
    limitExceeded({ option: 'maxEventBytes', limit: maxLineBytes, what: 'one line of the stream', ...provider });

  // Lines are found one by one within a chunk: an overlong line fails after the lines before it were read.
  const linesOf = (chunk: Uint8Array, emit: ItemEmit<string>): void => {
    let start = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
      if (pendingBytes + (at - start) > maxLineBytes) throw tooLong();
      const line = takeLine(chunk.subarray(start, at));
      start = at + 1;
      if (line !== undefined && emit(line) === false) return;
    }
    if (start < chunk.byteLength) {
      const rest = chunk.slice(start);
      pendingBytes += rest.byteLength;
      if (pendingBytes > maxLineBytes) throw tooLong();
      pending.push(rest);
    }
  };
  const last = (emit: ItemEmit<string>): void => {
    const line = pendingBytes > 0 ? takeLine(new Uint8Array(0)) : undefined;
    if (line !== undefined) emit(line);
  };
  await readBodyItems(
    body,
    {
      signal: options.signal,
      maxBytes,
      finished: options.finished,
      tooLarge: () =>
        limitExceeded({ option: 'maxStreamBytes', limit: maxBytes, what: 'the streamed answer', ...provider }),
    },
    { parse: linesOf, end: last, each },
  );
}
