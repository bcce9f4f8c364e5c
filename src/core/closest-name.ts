/**
 * "Did you mean …?" for names people type: flags, config keys, commands,
 * tool names. Case, `_`, `-`, `.` and spaces are ignored; a candidate that
 * contains the name (or is contained in it, both at least 3 characters) counts
 * as one edit. A suggestion
 * is made only when the best candidate is close enough to be a likely typo.
 */

/** Names longer than this are not compared (the comparison is quadratic in length). */
const MAX_COMPARED_LENGTH = 64;

const squash = (name: string): string => name.toLowerCase().replace(/[\s_.-]/g, '');

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate closest to `name`, when one is close enough to be a likely typo. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = squash(name);
  if (wanted === '' || wanted.length > MAX_COMPARED_LENGTH) return undefined;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const squashed = squash(candidate);
    if (squashed === '' || squashed.length > MAX_COMPARED_LENGTH) continue;
    const contains =
      Math.min(wanted.length, squashed.length) >= 3 && (squashed.includes(wanted) || wanted.includes(squashed));
    const distance = squashed === wanted ? 0 : contains ? 1 : editDistance(wanted, squashed);
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best === undefined) return undefined;
  // A distance as large as the name itself means nothing typed survives ("ab" → "xy"): not a typo.
  const close = best.distance <= Math.max(2, Math.floor(wanted.length / 3)) && best.distance < wanted.length;
  return close ? best.candidate : undefined;
}

/** ` — did you mean "x"?` for a message, or '' when nothing is close. */
export function didYouMean(
  name: string,
  candidates: Iterable<string>,
  quote: (s: string) => string = (s) => `"${s}"`,
): string {
  const best = closestName(name, candidates);
  return best === undefined ? '' : ` — did you mean ${quote(best)}?`;
}
