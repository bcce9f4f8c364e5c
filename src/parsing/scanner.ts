/**
 * Balanced-region scanner: finds where a JSON-like `{…}` or `[…]` ends inside
 * arbitrary text in one pass, skipping brackets inside strings. No regex
 * recursion and no backtracking, so a megabyte of `{{{{` or `"""` costs one pass.
 */

/** A bracketed region. `closed: false` means it ran to the scan limit unclosed. */
export interface Region {
  start: number;
  end: number;
  closed: boolean;
  /** Deepest bracket nesting seen inside the region. */
  maxDepth: number;
}

const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;

/** Characters after which a `'` starts a single-quoted string (not an apostrophe in prose): `{ [ , :`. */
const SINGLE_QUOTE_CONTEXT = new Set([OPEN_CURLY, OPEN_SQUARE, 0x2c, 0x3a]);

/**
 * Bracket state that can be fed text piece by piece (the stream filter feeds
 * deltas). A closer that matches an outer opener closes the inner ones too
 * (`{"a": [1}` ends at the `}`); a closer that matches nothing open is prose.
 */
export class BracketTracker {
  /** Open brackets, innermost last: 0 for `{`, 1 for `[` (a typed array: a megabyte of `{` stays cheap). */
  private stack = new Uint8Array(64);
  private size = 0;
  private openCurly = 0;
  private openSquare = 0;
  /** The quote character code of the string being read, or 0. */
  private quote = 0;
  /** A backslash ended the last piece: the next character is escaped. */
  private escaped = false;
  private lastSignificant = 0;
  maxDepth = 0;

  get depth(): number {
    return this.size;
  }

  /** Forgets all state, to scan a new region with the same instance. */
  reset(): this {
    this.size = 0;
    this.openCurly = 0;
    this.openSquare = 0;
    this.quote = 0;
    this.escaped = false;
    this.lastSignificant = 0;
    this.maxDepth = 0;
    return this;
  }

  /** Inside a string right now (a closer seen here is part of a value). */
  get inString(): boolean {
    return this.quote !== 0;
  }

  /**
   * Feeds `text[from, to)`. Returns the index just past the bracket that
   * closed the outermost opener, or -1 when the text ran out first.
   */
  feed(text: string, from: number, to: number): number {
    // Hot loop: state lives in locals and is written back on exit.
    let stack = this.stack;
    let size = this.size;
    let openCurly = this.openCurly;
    let openSquare = this.openSquare;
    let quote = this.quote;
    let escaped = this.escaped;
    let lastSignificant = this.lastSignificant;
    let maxDepth = this.maxDepth;
    let result = -1;
    for (let i = from; i < to; i += 1) {
      const c = text.charCodeAt(i);
      if (escaped) {
        escaped = false;
        continue;
      }
      if (quote !== 0) {
        if (c === BACKSLASH) escaped = true;
        else if (c === quote) {
          quote = 0;
          lastSignificant = c;
        }
        continue;
      }
      if (c === DOUBLE_QUOTE || (c === SINGLE_QUOTE && SINGLE_QUOTE_CONTEXT.has(lastSignificant))) {
        quote = c;
        continue;
      }
      if (c === OPEN_CURLY || c === OPEN_SQUARE) {
        if (size === stack.length) {
          const grown = new Uint8Array(stack.length * 2);
          grown.set(stack);
          stack = grown;
        }
        stack[size] = c === OPEN_CURLY ? 0 : 1;
        size += 1;
        if (c === OPEN_CURLY) openCurly += 1;
        else openSquare += 1;
        if (size > maxDepth) maxDepth = size;
      } else if ((c === CLOSE_CURLY && openCurly > 0) || (c === CLOSE_SQUARE && openSquare > 0)) {
        const opener = c === CLOSE_CURLY ? 0 : 1;
        // Pop to the matching opener: amortised O(1), every opener is popped once.
        while (size > 0) {
          size -= 1;
          const top = stack[size];
          if (top === 0) openCurly -= 1;
          else openSquare -= 1;
          if (top === opener) break;
        }
        if (size === 0) {
          result = i + 1;
          break;
        }
      }
      if (c !== 32 && c !== 10 && c !== 9 && c !== 13) lastSignificant = c;
    }
    this.stack = stack;
    this.size = size;
    this.openCurly = openCurly;
    this.openSquare = openSquare;
    this.quote = quote;
    this.escaped = escaped;
    this.lastSignificant = lastSignificant;
    this.maxDepth = maxDepth;
    return result;
  }
}

/** Scans the region that opens at `start` (which must hold `{` or `[`) up to `limit`. */
/** Reused by scanRegion (synchronous, never re-entered): prose with thousands of `{b}` allocates nothing. */
const SHARED = new BracketTracker();

export function scanRegion(text: string, start: number, limit: number = text.length): Region {
  const tracker = SHARED.reset();
  const end = tracker.feed(text, start, limit);
  return end < 0
    ? { start, end: limit, closed: false, maxDepth: tracker.maxDepth }
    : { start, end, closed: true, maxDepth: tracker.maxDepth };
}

/** The first `{` or `[` at or after `from` (before `limit`), or -1. */
export function indexOfOpener(text: string, from: number, limit: number = text.length): number {
  // A loop, not two indexOf calls: it stops at `limit` and at the first opener of either kind.
  for (let i = from; i < limit; i += 1) {
    const c = text.charCodeAt(i);
    if (c === OPEN_CURLY || c === OPEN_SQUARE) return i;
  }
  return -1;
}

/** The next region opening at or after `from`, or undefined when there is none. */
export function findNextRegion(text: string, from: number, limit: number = text.length): Region | undefined {
  const start = indexOfOpener(text, from, limit);
  return start < 0 ? undefined : scanRegion(text, start, limit);
}
