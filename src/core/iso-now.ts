let lastMs = Number.NaN;
let lastIso = '';

/**
 * The time an event or a run row is stamped with, as ISO text. Formatted once
 * per millisecond: several appends in one millisecond are common on the hot
 * path, and `toISOString` is not free.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
