import type { Span } from './types.ts';

/** Helpers over spans; lists are sorted by start and disjoint unless said otherwise. */

export function inside(span: Span, outer: Span): boolean {
  return span.start >= outer.start && span.end <= outer.end;
}

export function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Index of the last item starting at or before `pos` (binary search), or -1. */
export function lastStartingBy(length: number, startOf: (i: number) => number, pos: number): number {
  let lo = 0;
  let hi = length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (startOf(mid) <= pos) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Whether `span` overlaps one of `sorted`: only the last one starting before its end can. */
export function overlapsAny(sorted: readonly Span[], span: Span): boolean {
  const candidate = sorted[lastStartingBy(sorted.length, (i) => sorted[i]?.start ?? Infinity, span.end - 1)];
  return candidate !== undefined && overlaps(candidate, span);
}

/** The items overlapping `span`. */
export function overlapping<T extends { span: Span }>(items: readonly T[], span: Span): T[] {
  const out: T[] = [];
  for (
    let i = Math.max(
      0,
      lastStartingBy(items.length, (j) => items[j]?.span.start ?? Infinity, span.start),
    );
    i < items.length;
    i += 1
  ) {
    const item = items[i];
    if (item === undefined || item.span.start >= span.end) break;
    if (overlaps(item.span, span)) out.push(item);
  }
  return out;
}

/** The parts of [from, length) that no span in `covered` (any order, may overlap) covers. */
export function gaps(length: number, covered: readonly Span[], from = 0): Span[] {
  const sorted = [...covered].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  let pos = from;
  for (const span of sorted) {
    if (span.end <= pos) continue;
    if (span.start > pos) out.push({ start: pos, end: Math.min(span.start, length) });
    pos = Math.max(pos, span.end);
  }
  if (pos < length) out.push({ start: pos, end: length });
  return out;
}
