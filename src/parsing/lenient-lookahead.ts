import type { JsonValue } from '../core/json.ts';

/**
 * The look-ahead of the lenient JSON reader's extended reads: whether a quote
 * ends its string, judged by what follows it (lenient-json.ts). Each stretch
 * between quotes is looked at a bounded number of times, so reads stay linear.
 */

export const WORD_RE = /[A-Za-z_$][\w$-]*/y;
export const KEY_RE = /[\w$-]+/y;
export const JSON_LITERALS = new Map<string, JsonValue>([
  ['true', true],
  ['false', false],
  ['null', null],
]);
export const PYTHON_LITERALS = new Map<string, JsonValue>([
  ['True', true],
  ['False', false],
  ['None', null],
]);

/** Where a string stands: it decides what may follow its closing quote (extended reads). */
export type Place = 'key' | 'object' | 'array' | 'top';

/** After a backslash between tokens: a literal escape sequence a model wrote instead of layout. */
export const LITERAL_LAYOUT = new Set(['n', 'r', 't']);
const VALUE_STARTS = new Set(['"', "'", '{', '[', ']', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
export const OTHER_CLOSER: Record<string, string> = { '}': ']', ']': '}' };
/** Braces doubled or tripled by a template escape; a longer run is not that. */
export const MAX_EXTRA_BRACES = 2;

function isSpace(c: string): boolean {
  return (
    c === ' ' ||
    c === '\n' ||
    c === '\r' ||
    c === '\t' ||
    c === '\u00a0' ||
    c === '\ufeff' ||
    c === '\u2028' ||
    c === '\u2029'
  );
}

function isCommentAt(text: string, at: number): boolean {
  const next = text.charAt(at + 1);
  return text.charAt(at) === '/' && (next === '/' || next === '*');
}

/** Where the whitespace (and literal `\n` `\t` `\r`) from `from` ends. */
function spaceEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charAt(i);
    if (isSpace(c)) i += 1;
    else if (c === '\\' && LITERAL_LAYOUT.has(text.charAt(i + 1))) i += 2;
    else break;
  }
  return i;
}

/** Whether a property name followed by `:` starts at `at`; `cut`: a quoted name cut by the end counts. */
function keyAt(text: string, at: number, cut: boolean): boolean {
  const c = text.charAt(at);
  let end: number;
  if (c === '"' || c === "'") {
    // Stops at the next quote: each stretch between quotes is looked at a bounded number of times.
    end = at + 1;
    while (end < text.length && text.charAt(end) !== c) end += text.charAt(end) === '\\' ? 2 : 1;
    if (end >= text.length) return cut;
    end += 1;
  } else {
    KEY_RE.lastIndex = at;
    const match = KEY_RE.exec(text);
    if (match === null) return false;
    end = at + match[0].length;
  }
  const colon = spaceEnd(text, end);
  return colon >= text.length || text.charAt(colon) === ':';
}

/** Whether what follows a comma at `from` can be the next member of an object. */
function keyFollows(text: string, from: number): boolean {
  const at = spaceEnd(text, from);
  return at >= text.length || text.charAt(at) === '}' || isCommentAt(text, at) || keyAt(text, at, true);
}

/** Whether what follows a comma at `from` can be the next item of an array. */
function valueFollows(text: string, from: number): boolean {
  const at = spaceEnd(text, from);
  if (at >= text.length || VALUE_STARTS.has(text.charAt(at)) || isCommentAt(text, at)) return true;
  WORD_RE.lastIndex = at;
  const word = WORD_RE.exec(text)?.[0] ?? '';
  return JSON_LITERALS.has(word) || PYTHON_LITERALS.has(word);
}

/**
 * Whether the quote at `at` ends its string, judged by what follows it: a
 * closer, the end, a comment, and — by place — `:` after a key, a comma and
 * the next key in an object, a comma and the next item in an array. Any
 * other quote is one the model left unescaped inside the string. Inside
 * containers, the end of the text closes only a string that kept no quote:
 * past one, nothing says where the string ends.
 */
export function closesString(text: string, at: number, string: { place: Place; keptQuote: boolean }): boolean {
  const { place } = string;
  const next = spaceEnd(text, at + 1);
  if (next >= text.length) return place === 'top' || !string.keptQuote;
  // A string that is the whole document (double-encoded arguments) ends only at the end.
  if (place === 'top') return false;
  const c = text.charAt(next);
  if (c === '}' || c === ']' || isCommentAt(text, next)) return true;
  if (place === 'key') return c === ':' || c === ',';
  if (place === 'array') return c === ',' && valueFollows(text, next + 1);
  // A key right after the quote is a missing comma, not text: close, and let the read fail there.
  return c === ':' || (c === ',' ? keyFollows(text, next + 1) : keyAt(text, next, false));
}
