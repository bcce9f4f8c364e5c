import type { Span } from './types.ts';

/**
 * The text left when calls are taken out. Where a piece was removed, the
 * whitespace on both sides collapses to one separator: a blank line if either
 * side had a line break, else a space.
 */
export function buildContent(text: string, removed: readonly Span[]): string {
  if (removed.length === 0) return text.trim();
  const sorted = [...removed].sort((a, b) => a.start - b.start);
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
