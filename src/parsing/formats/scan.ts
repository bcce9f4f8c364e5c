import { DEFAULT_MAX_TAG_HEAD, skipSpace } from '../envelopes/envelope.ts';
import { isQuotedToken } from '../envelopes/token-families.ts';
import type { Span } from '../types.ts';

/**
 * Small linear scans shared by the format reader: balanced brackets with
 * configurable string delimiters, a tool name's extent, and a finder of a
 * marker's next occurrence that is not written as inline code.
 */

export interface Balanced {
  /** Just past the closing bracket, or `limit` when it never closed. */
  end: number;
  closed: boolean;
}

const OPEN: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
const CLOSERS = new Set(['}', ']', ')']);

/**
 * From the bracket at `range.start`, where it closes: brackets inside strings
 * (`"…"` and `'…'` with backslash escapes, and `delimiters` pairs read raw)
 * do not count. One pass, never past `range.end`.
 */
export function scanBalanced(
  text: string,
  range: Span,
  delimiters: readonly (readonly [string, string])[] = [],
): Balanced {
  const limit = range.end;
  let depth = 0;
  let i = range.start;
  while (i < limit) {
    const c = text.charAt(i);
    const pair = delimiters.find(([open]) => open !== '' && text.startsWith(open, i));
    if (pair !== undefined && pair[0] !== '"' && pair[0] !== "'") {
      const close = text.indexOf(pair[1], i + pair[0].length);
      if (close < 0 || close + pair[1].length > limit) return { end: limit, closed: false };
      i = close + pair[1].length;
      continue;
    }
    if (c === '"' || (c === "'" && !/\w/.test(text.charAt(i - 1)))) {
      i += 1;
      while (i < limit && text.charAt(i) !== c) i += text.charAt(i) === '\\' ? 2 : 1;
      if (i >= limit) return { end: limit, closed: false };
      i += 1;
      continue;
    }
    if (OPEN[c] !== undefined) depth += 1;
    else if (CLOSERS.has(c)) {
      depth -= 1;
      if (depth <= 0) return { end: i + 1, closed: true };
    }
    i += 1;
  }
  return { end: limit, closed: false };
}

/** Characters a tool name never holds: a name read without an `after` marker ends at one. */
const NOT_NAME_RE = /[\s<>{}()[\]"'`,;=]/;
export const MAX_NAME_CHARS = 128;

/** Where the name starting at `from` ends (at most MAX_NAME_CHARS on). */
export function nameEnd(text: string, from: number, limit: number = text.length): number {
  let i = from;
  const stop = Math.min(limit, from + MAX_NAME_CHARS);
  while (i < stop && !NOT_NAME_RE.test(text.charAt(i))) i += 1;
  return i;
}

/** Where the name ending at `end` starts (a name right before a marker whose opener was eaten). */
export function nameStart(text: string, end: number): number {
  let i = end;
  const stop = Math.max(0, end - MAX_NAME_CHARS);
  while (i > stop && !NOT_NAME_RE.test(text.charAt(i - 1))) i -= 1;
  return i;
}

/**
 * The next occurrence of `marker` at or after `from` that is not inline code.
 * Queries come with increasing `from`; the answer is kept while it is still
 * ahead, so each marker costs one pass over the text in all.
 */
export function makeHitFinder(text: string, marker: string): (from: number) => number {
  let known = -1;
  let searchedFrom = Infinity;
  return (from: number): number => {
    if (searchedFrom <= from && (known < 0 || known >= from)) return known;
    let at = text.indexOf(marker, from);
    while (at >= 0 && isQuotedToken(text, at, at + marker.length)) at = text.indexOf(marker, at + 1);
    searchedFrom = from;
    known = at;
    return at;
  };
}

/** A marker distinctive enough to find a call whose opener was eaten: special-token punctuation, not a word. */
export function isDistinctive(marker: string | undefined): marker is string {
  return marker !== undefined && marker.length >= 4 && /[<[|｜]/.test(marker);
}

const ATTRIBUTE_RE = /[A-Za-z_][\w:.-]{0,63}\s*=\s*(?:"[^"<>\n]{0,256}"|'[^'<>\n]{0,256}'|[^\s"'<>]{1,256})/y;

/**
 * Past the attributes at `from` (`index="1" id='c0'`) and the `tagEnd` that
 * ends their tag; -1 when anything else comes first. Bounded by the longest
 * tag head, so a flood of attributes costs no more than one.
 */
export function skipAttributes(text: string, from: number, tagEnd: string): number {
  const stop = Math.min(text.length, from + DEFAULT_MAX_TAG_HEAD);
  let i = skipSpace(text, from, stop);
  while (i < stop) {
    if (text.startsWith(tagEnd, i)) return i + tagEnd.length;
    if (i > from && !/\s/.test(text.charAt(i - 1))) return -1;
    ATTRIBUTE_RE.lastIndex = i;
    const match = ATTRIBUTE_RE.exec(text);
    if (match === null) return -1;
    i = skipSpace(text, i + match[0].length, stop);
  }
  return -1;
}
