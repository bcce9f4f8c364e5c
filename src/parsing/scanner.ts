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

/** Characters after which a `'` starts a single-quoted string (not an apostrophe in prose). */
const SINGLE_QUOTE_CONTEXT = new Set(['{', '[', ',', ':']);

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r';
}

/**
 * Bracket state that can be fed text piece by piece (the stream filter feeds
 * deltas). A closer that matches an outer opener closes the inner ones too
 * (`{"a": [1}` ends at the `}`); a closer that matches nothing open is prose.
 */
export class BracketTracker {
  private readonly stack: string[] = [];
  private openCurly = 0;
  private openSquare = 0;
  private quote = '';
  /** A backslash ended the last piece: the next character is escaped. */
  private escaped = false;
  private lastSignificant = '';
  maxDepth = 0;

  get depth(): number {
    return this.stack.length;
  }

  /**
   * Feeds `text[from, to)`. Returns the index just past the bracket that
   * closed the outermost opener, or -1 when the text ran out first.
   */
  feed(text: string, from: number, to: number): number {
    const stack = this.stack;
    for (let i = from; i < to; i += 1) {
      const c = text.charAt(i);
      if (this.escaped) {
        this.escaped = false;
        continue;
      }
      if (this.quote !== '') {
        if (c === '\\') this.escaped = true;
        else if (c === this.quote) {
          this.quote = '';
          this.lastSignificant = c;
        }
        continue;
      }
      if (c === '"' || (c === "'" && SINGLE_QUOTE_CONTEXT.has(this.lastSignificant))) {
        this.quote = c;
        continue;
      }
      if (c === '{' || c === '[') {
        stack.push(c);
        if (c === '{') this.openCurly += 1;
        else this.openSquare += 1;
        if (stack.length > this.maxDepth) this.maxDepth = stack.length;
      } else if ((c === '}' && this.openCurly > 0) || (c === ']' && this.openSquare > 0)) {
        const opener = c === '}' ? '{' : '[';
        // Pop to the matching opener: amortised O(1), every opener is popped once.
        let top = stack.pop();
        while (top !== undefined) {
          if (top === '{') this.openCurly -= 1;
          else this.openSquare -= 1;
          if (top === opener) break;
          top = stack.pop();
        }
        if (stack.length === 0) return i + 1;
      }
      if (!isSpace(c)) this.lastSignificant = c;
    }
    return -1;
  }
}

/** Scans the region that opens at `start` (which must hold `{` or `[`) up to `limit`. */
export function scanRegion(text: string, start: number, limit: number = text.length): Region {
  const tracker = new BracketTracker();
  const end = tracker.feed(text, start, limit);
  return end < 0 ? { start, end: limit, closed: false, maxDepth: tracker.maxDepth } : { start, end, closed: true, maxDepth: tracker.maxDepth };
}

/** The first `{` or `[` at or after `from` (before `limit`), or -1. */
export function indexOfOpener(text: string, from: number, limit: number = text.length): number {
  for (let i = from; i < limit; i += 1) {
    const c = text.charAt(i);
    if (c === '{' || c === '[') return i;
  }
  return -1;
}

/** The next region opening at or after `from`, or undefined when there is none. */
export function findNextRegion(text: string, from: number, limit: number = text.length): Region | undefined {
  const start = indexOfOpener(text, from, limit);
  return start < 0 ? undefined : scanRegion(text, start, limit);
}
