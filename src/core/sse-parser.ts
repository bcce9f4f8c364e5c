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

/** Receives each event as it is dispatched; returning false stops the parser (see SseParser.feed). */
export type SseEmit = (event: SseEvent) => boolean | void;

/** Any character outside ASCII: a line without one is as many UTF-8 bytes as characters. */
// eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
const NON_ASCII = /[^\x00-\x7f]/;

/** UTF-8 bytes of text[from, to): surrogates count 2 each (a pair is 4 bytes). */
function utf8Bytes(text: string, from: number, to: number): number {
  if (to <= from) return 0;
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  if (!NON_ASCII.test(part)) return part.length;
  let bytes = 0;
  for (let i = 0; i < part.length; i += 1) {
    const ch = part.charCodeAt(i);
    bytes += ch < 0x80 ? 1 : ch < 0x800 || (ch >= 0xd800 && ch <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

/**
 * Incremental parser: `feed` text as it arrives (each event goes to `emit` as
 * soon as its blank line is read), `finish` once the stream closes. `push` and
 * `end` return the events instead.
 */
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
  /** An emit returned false: everything after is ignored. */
  #stopped = false;
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  constructor(options: SseParserOptions = {}) {
    this.#maxEventBytes = options.maxEventBytes ?? DEFAULT_SSE_MAX_EVENT_BYTES;
    this.#tooLargeError =
      options.tooLarge ?? ((limit) => new ToolgateError('internal', `one server-sent event exceeds ${limit} bytes`));
  }

  /**
   * The events dispatched by `text`. Throws (options.tooLarge) once a line, or the event it belongs to, outgrows
   * maxEventBytes.
   */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    this.feed(text, (event) => {
      out.push(event);
    });
    return out;
  }

  /**
   * Reads `text`, handing each event to `emit` as it is dispatched, before the
   * rest of the text is read. Once `emit` returns false nothing more is read
   * (now or later). Throws (options.tooLarge) once a line, or the event it
   * belongs to, outgrows maxEventBytes.
   */
  feed(text: string, emit: SseEmit): void {
    if (text === '' || this.#stopped) return;
    if (this.#first) {
      this.#first = false;
      // A byte order mark may start the stream.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.#pendingCr && text.startsWith('\n')) start = 1;
    this.#pendingCr = false;
    // Line breaks are found with indexOf; each search's answer is kept until it is passed.
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (!this.#stopped) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (at === -1) break;
      this.#lineBytes += utf8Bytes(text, start, at);
      if (this.#lineBytes + this.#eventBytes > this.#maxEventBytes) this.#tooLarge();
      this.#line(this.#buffer === '' ? text.slice(start, at) : this.#buffer + text.slice(start, at), emit);
      this.#buffer = '';
      this.#lineBytes = 0;
      let next = at + 1;
      if (text.charCodeAt(at) === 13) {
        if (next === text.length) this.#pendingCr = true;
        else if (text.charCodeAt(next) === 10) next += 1;
      }
      start = next;
    }
    if (this.#stopped) return;
    this.#lineBytes += utf8Bytes(text, start, text.length);
    if (this.#lineBytes + this.#eventBytes > this.#maxEventBytes) this.#tooLarge();
    this.#buffer += start === 0 ? text : text.slice(start);
  }

  /**
   * Flushes what is left. The spec drops an event without its closing blank
   * line; some servers omit it before closing, so a pending event is kept.
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    this.finish((event) => {
      out.push(event);
    });
    return out;
  }

  /** `end`, handing what is left to `emit`. */
  finish(emit: SseEmit): void {
    if (this.#stopped) return;
    if (this.#buffer !== '') this.#line(this.#buffer, emit);
    this.#buffer = '';
    this.#lineBytes = 0;
    this.#dispatch(emit);
  }

  #tooLarge(): never {
    throw this.#tooLargeError(this.#maxEventBytes);
  }

  #line(line: string, emit: SseEmit): void {
    if (line === '') {
      this.#dispatch(emit);
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

  #dispatch(emit: SseEmit): void {
    const data = this.#data;
    const name = this.#event;
    this.#data = [];
    this.#eventBytes = 0;
    this.#event = '';
    if (data.length === 0) return;
    const event: SseEvent = {
      event: name === '' ? 'message' : name,
      data: data.length === 1 ? (data[0] ?? '') : data.join('\n'),
    };
    if (this.#id !== undefined) event.id = this.#id;
    if (emit(event) === false) this.#stopped = true;
  }
}
