import { scanRegion } from '../scanner.ts';
import { skipSpace } from './envelope.ts';

/**
 * From a `{` or `[` at `start`, the extent of consecutive JSON values that
 * follow each other with only whitespace, `,` or `;` between them (Llama
 * writes `{…}; {…}`). `closed: false` when the last one ran to `limit` open.
 */
export function scanJsonSequence(
  text: string,
  start: number,
  limit: number = text.length,
): { end: number; closed: boolean } {
  let pos = start;
  while (true) {
    const region = scanRegion(text, pos, limit);
    if (!region.closed) return { end: region.end, closed: false };
    let next = region.end;
    while (next < limit) {
      next = skipSpace(text, next, limit);
      const c = text.charAt(next);
      if (c !== ',' && c !== ';') break;
      next += 1;
    }
    // Only objects continue a sequence: a `[` after a call is more often prose ("[1]").
    if (text.charAt(next) !== '{') return { end: region.end, closed: true };
    pos = next;
  }
}
