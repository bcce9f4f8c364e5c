/**
 * A `text/event-stream` parser (WHATWG HTML "server-sent events" rules), fed
 * incrementally: network chunks split a stream anywhere — inside a line,
 * between `\r` and `\n`, inside a multi-byte character — so nothing here
 * assumes a chunk holds whole lines. What it buffers is bounded: one event,
 * `maxEventBytes`. Used for model streams (providers) and for following runs
 * of a toolgate server (CLI): both read from endpoints they do not control.
 */
import { ToolgateError } from './errors.ts';

export const DEFAULT_SSE_MAX_EVENT_BYTES = 1024 * 1024;

/** One dispatched event. `event` is "message" unless the stream named it. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export interface SseParserOptions {
  /** Largest event (its data lines) or single line, in UTF-8 bytes. Default DEFAULT_SSE_MAX_EVENT_BYTES. */
  maxEventBytes?: number;
  /** The error thrown when an event outgrows maxEventBytes (each reader names its own limit). */
  tooLarge?: (maxEventBytes: number) => Error;
}

/** Incremental parser: `push` text as it arrives, `end` once the stream closes. */
export class SseParser {
  readonly #maxEventBytes: number;
  readonly #tooLargeError: (maxEventBytes: number) => Error;
  #buffer = '';
  /** UTF-8 bytes of the line being read, #buffer included. */
  #lineBytes = 0;
  /** UTF-8 bytes kept for the event being built: its data lines. */
  #eventBytes = 0;
  /** A chunk ended in `\r`: a following `\n` belongs to the same line break. */
  #pendingCr = false;
  #first = true;
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  constructor(options: SseParserOptions = {}) {
    this.#maxEventBytes = options.maxEventBytes ?? DEFAULT_SSE_MAX_EVENT_BYTES;
    this.#tooLargeError = options.tooLarge ?? ((limit) => new ToolgateError('internal', `one server-sent event exceeds ${limit} bytes`));
  }

  /** Throws (options.tooLarge) once a line, or the event it belongs to, outgrows maxEventBytes. */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (text === '') return out;
    if (this.#first) {
      this.#first = false;
      // A byte order mark may start the stream.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.#pendingCr && text.startsWith('\n')) start = 1;
    this.#pendingCr = false;
    let i = start;
    while (i < text.length) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) {
        // Surrogates count 2 each: a pair is 4 bytes in UTF-8.
        this.#lineBytes += ch < 0x80 ? 1 : ch < 0x800 || (ch >= 0xd800 && ch <= 0xdfff) ? 2 : 3;
        if (this.#lineBytes + this.#eventBytes > this.#maxEventBytes) this.#tooLarge();
        i += 1;
        continue;
      }
      this.#line(this.#buffer + text.slice(start, i), out);
      this.#buffer = '';
      this.#lineBytes = 0;
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
    this.#lineBytes = 0;
    this.#dispatch(out);
    return out;
  }

  #tooLarge(): never {
    throw this.#tooLargeError(this.#maxEventBytes);
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
        // Plus one for the "\n" that joins data lines: a run of empty ones still adds up.
        this.#eventBytes += this.#lineBytes + 1;
        if (this.#eventBytes > this.#maxEventBytes) this.#tooLarge();
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
    this.#eventBytes = 0;
    this.#event = '';
  }
}

