/**
 * Reads one JSON-RPC message from an MCP server as its bytes arrive, without
 * holding more than a bound of it: the SDK's readers hold a whole message
 * (and its stdio reader drops the connection past 10 MB), so one hostile
 * answer would cost either the memory or every call in flight. The scan
 * tracks what deciding needs: the size, the nesting, three small values
 * that say what the message is and how to answer in its place (the top
 * level's `id` and `method`, `result.isError`), and where the kept head of a
 * message too large can be closed into valid JSON. Servers on the official
 * SDK write `result` before `id`, so a message is always scanned to its end.
 */
import { concatBytes } from '../../core/concat-bytes.ts';
import { closeHead, type HeadCut } from './close-head.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/** Longest key or value kept for deciding (an id, `true`). */
const MAX_CAPTURE_BYTES = 256;

export type JsonRpcId = string | number;

export interface ScanLimits {
  /** Bytes of a message kept: a larger one is read on, not kept, and refused. */
  keepBytes: number;
  /** Bytes of a refused message closed into its `head` (at most keepBytes): what a result cut to size can use. */
  headBytes: number;
  /** Deepest nesting of a message (its top level is level 1). */
  maxDepth: number;
}

/** `whole`: the message as it came, within the limits. `refused`: what is known of one that is not. */
export type ScanVerdict =
  | { kind: 'whole'; bytes: Uint8Array }
  | {
      kind: 'refused';
      reason: 'too_large' | 'too_deep';
      /** Its full size. */
      bytes: number;
      /**
       * too_large: its first `headBytes` bytes closed into a value (a string cut, what was open closed), if that
       * worked.
       */
      head: unknown;
      /** The id it answers (or asks with). */
      id: JsonRpcId | undefined;
      /** It has a `method`: a request or notification of the server, not an answer. */
      isRequest: boolean;
      /** Its `result.isError`, when it said. */
      isError: boolean | undefined;
    };

type Capture = { what: 'key' | 'id' | 'isError'; bytes: number[]; depth: number };

const decoder = new TextDecoder();

export class MessageScanner {
  readonly #limits: ScanLimits;
  #chunks: Uint8Array[] = [];
  #kept = 0;
  /** Bytes taken before the chunk being scanned; with its index, the offset in the message. */
  #size = 0;
  #base = 0;
  #depth = 0;
  #tooDeep = false;
  /** Open containers (true: an object), up to the depth limit. */
  #stack: boolean[] = [];
  #expectKey = false;
  #inString = false;
  #stringIsKey = false;
  #escaped = false;
  /** After this offset the message so far could be closed into valid JSON. */
  #lastSafe = 0;
  #cut: HeadCut | undefined;
  /** The next backslash in the chunk being read (a cache, so that strings without one cost one search per chunk). */
  #backslashChunk: Uint8Array | undefined;
  #backslashAt = 0;
  /** The last key of the top level (depth 1) and of its `result` object (depth 2). */
  #key1 = '';
  #key2 = '';
  #pending: { what: 'id' | 'isError'; depth: number } | undefined;
  #capture: Capture | undefined;
  #id: JsonRpcId | undefined;
  #isError: boolean | undefined;
  #isRequest = false;

  constructor(limits: ScanLimits) {
    this.#limits = limits;
  }

  /** Bytes taken of the message so far. */
  get size(): number {
    return this.#size;
  }

  /** Bytes `start`..`end` of `chunk`, the next ones of the message. */
  push(chunk: Uint8Array, start = 0, end = chunk.length): void {
    if (end <= start) return;
    const room = this.#limits.keepBytes - this.#kept;
    if (room > 0) {
      const take = Math.min(end - start, room);
      this.#chunks.push(chunk.subarray(start, start + take));
      this.#kept += take;
    }
    // The head ends inside these bytes and more follow: the state where it ends says how to close it.
    const toHeadEnd = this.#limits.headBytes - this.#size;
    if (this.#cut === undefined && toHeadEnd >= 0 && toHeadEnd < end - start) {
      this.#scan(chunk, start, start + toHeadEnd);
      this.#cut = this.#snapshot();
      this.#scan(chunk, start + toHeadEnd, end);
      return;
    }
    this.#scan(chunk, start, end);
  }

  /** The message ended: the verdict on it; the scanner is ready for the next one. */
  finish(): ScanVerdict {
    const size = this.#size;
    const head = concatBytes(this.#chunks);
    let verdict: ScanVerdict;
    if (size <= this.#limits.keepBytes && !this.#tooDeep) verdict = { kind: 'whole', bytes: head };
    else {
      verdict = {
        kind: 'refused',
        reason: this.#tooDeep ? 'too_deep' : 'too_large',
        bytes: size,
        head:
          this.#tooDeep || this.#cut === undefined
            ? undefined
            : closeHead(head.subarray(0, this.#limits.headBytes), this.#cut),
        id: this.#id,
        isRequest: this.#isRequest,
        isError: this.#isError,
      };
    }
    this.#reset();
    return verdict;
  }

  #scan(chunk: Uint8Array, start: number, end: number): void {
    this.#base = this.#size - start;
    this.#size += end - start;
    let i = start;
    while (i < end) {
      if (this.#inString) {
        i = this.#scanString(chunk, i, end);
        continue;
      }
      const c = chunk[i] ?? 0;
      i += 1;
      if (c === OPEN_CURLY || c === OPEN_SQUARE) this.#open(c === OPEN_CURLY, i);
      else if (c === CLOSE_CURLY || c === CLOSE_SQUARE) this.#close(i);
      else if (c === QUOTE) this.#startString();
      else if (c === COLON) this.#colon();
      else if (c === COMMA) this.#comma(i - 1);
      else if (c > 0x20) this.#token(c);
    }
  }

  /** Inside a string: up to its end, or the end of the bytes given. Returns where to go on. */
  #scanString(chunk: Uint8Array, start: number, end: number): number {
    if (this.#escaped) {
      this.#escaped = false;
      this.#keep(chunk, start, start + 1);
      return start + 1;
    }
    let quote = chunk.indexOf(QUOTE, start);
    if (quote < 0 || quote > end) quote = end;
    if (this.#backslashChunk !== chunk || this.#backslashAt < start) {
      const found = chunk.indexOf(BACKSLASH, start);
      this.#backslashChunk = chunk;
      this.#backslashAt = found < 0 ? chunk.length : found;
    }
    const stop = Math.min(quote, this.#backslashAt, end);
    this.#keep(chunk, start, stop);
    if (stop >= end) return end;
    if (chunk[stop] === BACKSLASH) {
      this.#escaped = true;
      this.#keep(chunk, stop, stop + 1);
    } else {
      this.#inString = false;
      this.#endString(stop + 1);
    }
    return stop + 1;
  }

  #keep(chunk: Uint8Array, start: number, end: number): void {
    const capture = this.#capture;
    if (capture === undefined) return;
    for (let i = start; i < end && capture.bytes.length <= MAX_CAPTURE_BYTES; i += 1) capture.bytes.push(chunk[i] ?? 0);
  }

  #open(isObject: boolean, after: number): void {
    // An id or isError that is an object or array is none this scan keeps.
    if (this.#pending?.depth === this.#depth) this.#pending = undefined;
    this.#depth += 1;
    if (this.#depth > this.#limits.maxDepth) this.#tooDeep = true;
    else this.#stack.push(isObject);
    this.#expectKey = isObject;
    this.#lastSafe = this.#base + after;
  }

  #close(after: number): void {
    if (this.#capture !== undefined && this.#capture.depth === this.#depth) this.#endCapture();
    if (this.#depth <= this.#limits.maxDepth) this.#stack.pop();
    this.#depth -= 1;
    this.#expectKey = false;
    if (this.#depth < 2) this.#key2 = '';
    this.#lastSafe = this.#base + after;
  }

  #startString(): void {
    this.#inString = true;
    this.#stringIsKey = this.#expectKey;
    if (this.#expectKey && this.#depth <= 2) this.#capture = { what: 'key', bytes: [], depth: this.#depth };
    else if (!this.#expectKey) this.#token(QUOTE);
  }

  #endString(after: number): void {
    if (!this.#stringIsKey) this.#lastSafe = this.#base + after;
    const capture = this.#capture;
    if (capture === undefined) return;
    if (capture.what !== 'key') {
      capture.bytes.push(QUOTE);
      return;
    }
    this.#capture = undefined;
    const key = capture.bytes.length <= MAX_CAPTURE_BYTES ? decoder.decode(Uint8Array.from(capture.bytes)) : '';
    if (capture.depth === 1) {
      this.#key1 = key;
      if (key === 'method') this.#isRequest = true;
    } else if (this.#key1 === 'result' && this.#stack[0] === true && this.#stack[1] === true) this.#key2 = key;
  }

  #colon(): void {
    this.#expectKey = false;
    if (this.#depth === 1 && this.#key1 === 'id') this.#pending = { what: 'id', depth: 1 };
    else if (this.#depth === 2 && this.#key2 === 'isError') this.#pending = { what: 'isError', depth: 2 };
    else this.#pending = undefined;
  }

  #comma(at: number): void {
    if (this.#capture !== undefined && this.#capture.depth === this.#depth) this.#endCapture();
    this.#expectKey = this.#stack[this.#stack.length - 1] === true && this.#depth <= this.#limits.maxDepth;
    // Before the comma, the value before it is complete.
    this.#lastSafe = this.#base + at;
  }

  /** The first byte of a scalar (or of a string value), or one more byte of it. */
  #token(c: number): void {
    const pending = this.#pending;
    if (pending !== undefined && pending.depth === this.#depth) {
      this.#capture = { what: pending.what, bytes: [], depth: pending.depth };
      this.#pending = undefined;
    }
    const capture = this.#capture;
    if (capture !== undefined && capture.depth === this.#depth && capture.bytes.length <= MAX_CAPTURE_BYTES)
      capture.bytes.push(c);
  }

  #endCapture(): void {
    const capture = this.#capture;
    this.#capture = undefined;
    if (capture === undefined || capture.bytes.length > MAX_CAPTURE_BYTES) return;
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(Uint8Array.from(capture.bytes)));
    } catch {
      return;
    }
    if (capture.what === 'id' && (typeof value === 'string' || typeof value === 'number')) this.#id = value;
    if (capture.what === 'isError' && typeof value === 'boolean') this.#isError = value;
  }

  #snapshot(): HeadCut {
    return { inValueString: this.#inString && !this.#stringIsKey, lastSafe: this.#lastSafe, open: [...this.#stack] };
  }

  #reset(): void {
    this.#chunks = [];
    this.#kept = 0;
    this.#size = 0;
    this.#depth = 0;
    this.#tooDeep = false;
    this.#stack = [];
    this.#expectKey = false;
    this.#inString = false;
    this.#stringIsKey = false;
    this.#escaped = false;
    this.#lastSafe = 0;
    this.#cut = undefined;
    this.#backslashChunk = undefined;
    this.#key1 = '';
    this.#key2 = '';
    this.#pending = undefined;
    this.#capture = undefined;
    this.#id = undefined;
    this.#isError = undefined;
    this.#isRequest = false;
  }
}
