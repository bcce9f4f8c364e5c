/**
 * Curly quotes a model (or a word processor it learned from) used as JSON
 * delimiters: `{“city”: “Paris”}`. A typographic quote becomes `"` only where
 * it delimits — opening right after `{ [ , :` (or the start), closing right
 * before `: , } ]` (or the end) — and never inside a value: in
 * `{"text": "He said “hi”"}` the quotes are text. Same length out as in, so
 * positions still point into the original.
 */

const OPENING = new Set(['“', '”', '„', '«', '»', '‘', '’']);
const BEFORE_OPEN = new Set(['{', '[', ',', ':', '']);
const AFTER_CLOSE = new Set([':', ',', '}', ']', '']);

function prevSignificant(text: string, i: number): string {
  for (let j = i - 1; j >= 0; j -= 1) if (!/\s/.test(text.charAt(j))) return text.charAt(j);
  return '';
}

function nextSignificant(text: string, i: number): string {
  for (let j = i + 1; j < text.length; j += 1) if (!/\s/.test(text.charAt(j))) return text.charAt(j);
  return '';
}

/** The text with delimiting typographic quotes made ASCII, or undefined when none delimits. */
export function normalizeTypographicQuotes(text: string): string | undefined {
  const out = text.split('');
  let changed = false;
  let inAscii = false;
  let open = -1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (inAscii) {
      if (c === '\\') i += 1;
      else if (c === '"') inAscii = false;
      continue;
    }
    if (open >= 0) {
      // Inside a curly-quoted string: only a quote followed by a delimiter closes it.
      if (OPENING.has(c) && AFTER_CLOSE.has(nextSignificant(text, i))) {
        out[open] = '"';
        out[i] = '"';
        changed = true;
        open = -1;
      }
      continue;
    }
    if (c === '"') inAscii = true;
    else if (OPENING.has(c) && BEFORE_OPEN.has(prevSignificant(text, i))) open = i;
  }
  return changed ? out.join('') : undefined;
}
