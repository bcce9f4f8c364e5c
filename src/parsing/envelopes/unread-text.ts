import { LEAKED_SENTINELS } from './xml-families.ts';

/**
 * Text inside an envelope that no reader consumed (words between
 * parameters, a second object after the arguments): the call fails there
 * rather than drop it. Whitespace and leaked end-of-turn tokens are noise.
 *
 * Returns the first offset in [from, to) holding neither, or -1.
 */
export function unreadText(text: string, from: number, to: number): number {
  let pos = from;
  while (pos < to) {
    const c = text.charAt(pos);
    if (/\s/.test(c)) pos += 1;
    else {
      const sentinel = LEAKED_SENTINELS.find((s) => text.startsWith(s, pos));
      if (sentinel === undefined) return pos;
      pos += sentinel.length;
    }
  }
  return -1;
}
