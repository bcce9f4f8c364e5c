import { LEAKED_SENTINELS } from './envelopes/xml-families.ts';
import type { Span } from './types.ts';

/**
 * The text left when calls are taken out. Where a piece was removed, the
 * whitespace on both sides collapses to one separator: a blank line if either
 * side had a line break, else a space. Special-token-like markers around a
 * removed call leave with it (see widenOverMarkers).
 */
export function buildContent(text: string, removed: readonly Span[]): string {
  if (removed.length === 0) return text.trim();
  const ordered = [...removed].sort((a, b) => a.start - b.start);
  // Each span widens only up to its neighbours: a flood of markers between many
  // removed spans is walked once, not once per span.
  const sorted: Span[] = [];
  let floor = 0;
  ordered.forEach((span, i) => {
    const ceiling = Math.max(ordered[i + 1]?.start ?? text.length, span.end);
    sorted.push(widenOverMarkers(text, span, { min: Math.min(floor, span.start), max: ceiling }));
    floor = Math.max(floor, span.end);
  });
  const pieces: string[] = [];
  let pos = 0;
  for (const span of sorted) {
    if (span.start > pos) pieces.push(text.slice(pos, span.start));
    pos = Math.max(pos, span.end);
  }
  if (pos < text.length) pieces.push(text.slice(pos));
  const parts: string[] = [];
  let pendingBreak = false;
  for (const piece of pieces) {
    const trimmed = piece.trim();
    const leading = piece.slice(0, piece.length - piece.trimStart().length);
    const trailing = piece.slice(piece.trimEnd().length);
    if (trimmed === '') {
      pendingBreak ||= piece.includes('\n');
      continue;
    }
    if (parts.length > 0) parts.push(pendingBreak || leading.includes('\n') ? '\n\n' : ' ');
    parts.push(trimmed);
    pendingBreak = trailing.includes('\n');
  }
  return parts.join('');
}

/**
 * `<|word|>`, `<|word>`, `<word|>` (also with the full-width bar `｜`): a
 * letter inside and no blank, so `<|"|>` (a string delimiter) and prose such
 * as `a <| b` are not markers.
 */
const MARKER_RE = /^(?:<[|｜][^\s<>|｜]*\p{L}[^\s<>|｜]*[|｜]>|<[|｜]\p{L}[\w.:-]*>|<\p{L}[\w.:-]*[|｜]>)$/u;
const MAX_MARKER = 64;
/** A role header between two markers (`<|message_sep|>function call<|role_sep|>`): this many characters at most. */
const MAX_ROLE_RUN = 32;
const RUN_CHAR_RE = /[\p{L}\p{N}_ \t-]/u;
const SPACE_RE = /\s/;

function markerEndingAt(text: string, end: number): number {
  for (const sentinel of LEAKED_SENTINELS) if (text.endsWith(sentinel, end)) return end - sentinel.length;
  if (text.charAt(end - 1) !== '>') return -1;
  const from = Math.max(0, end - MAX_MARKER);
  const open = from + text.slice(from, end - 1).lastIndexOf('<');
  return open >= from && MARKER_RE.test(text.slice(open, end)) ? open : -1;
}

function markerStartingAt(text: string, start: number): number {
  for (const sentinel of LEAKED_SENTINELS) if (text.startsWith(sentinel, start)) return start + sentinel.length;
  if (text.charAt(start) !== '<') return -1;
  const close = text.slice(start, start + MAX_MARKER).indexOf('>');
  return close >= 0 && MARKER_RE.test(text.slice(start, start + close + 1)) ? start + close + 1 : -1;
}

function spaceBefore(text: string, at: number): number {
  let i = at;
  while (i > 0 && SPACE_RE.test(text.charAt(i - 1))) i -= 1;
  return i;
}

function spaceAfter(text: string, at: number): number {
  let i = at;
  while (i < text.length && SPACE_RE.test(text.charAt(i))) i += 1;
  return i;
}

/**
 * A role word, not prose: on one line, one word, or two or three lowercase
 * words (`assistant`, `function call`); no punctuation, so a sentence stays.
 */
function isRoleRun(run: string): boolean {
  const words = run.trim().split(/[ \t]+/);
  if (words.length === 0 || words.length > 3 || words[0] === '') return false;
  return words.length === 1 || words.every((word) => word === word.toLowerCase());
}

/** Where a role run (`function call`) ending at `end` starts, right after a marker; -1 when there is none. */
function roleRunBefore(text: string, end: number): number {
  let i = end;
  while (i > 0 && end - i < MAX_ROLE_RUN && RUN_CHAR_RE.test(text.charAt(i - 1))) i -= 1;
  if (i === end || !isRoleRun(text.slice(i, end))) return -1;
  return markerEndingAt(text, spaceBefore(text, i));
}

/**
 * A marker with a word right after it (`<|start|>assistant`, `<|im_start|>user`)
 * opens the next message, which may be read again (Harmony's final channel): it stays.
 */
function opensNext(text: string, markerEnd: number): boolean {
  return markerEnd < text.length && !SPACE_RE.test(text.charAt(markerEnd)) && markerStartingAt(text, markerEnd) < 0;
}

/**
 * `span` grown over the special-token-like markers next to it (blanks
 * between allowed): the call's own role header and end-of-turn tokens, which
 * are not content. Before a span that starts with (or is now preceded by) a
 * marker, a role run between two markers goes too. Prose stops it, and so
 * does, after the span, a marker that opens the next message.
 */
export function widenOverMarkers(
  text: string,
  span: Span,
  bounds: { min: number; max: number } = { min: 0, max: text.length },
): Span {
  let { start, end } = span;
  let markerAtStart = markerStartingAt(text, start) > start;
  while (start > bounds.min) {
    const before = spaceBefore(text, start);
    const marker = markerEndingAt(text, before);
    if (marker >= bounds.min) {
      start = marker;
      markerAtStart = true;
      continue;
    }
    const role = markerAtStart ? roleRunBefore(text, before) : -1;
    if (role < bounds.min) break;
    start = role;
  }
  while (end < bounds.max) {
    const marker = markerStartingAt(text, spaceAfter(text, end));
    if (marker < 0 || marker > bounds.max || opensNext(text, marker)) break;
    end = marker;
  }
  return { start, end };
}
