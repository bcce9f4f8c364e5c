import { isJsonObject } from '../../core/json.ts';
import { parseLenient } from '../lenient-json.ts';
import type { JsonValue } from '../../core/json.ts';
import type { RepairKind, Span } from '../types.ts';
import type { ArgsReading } from './args-reading.ts';

/**
 * JSON-like object literals: `{city:<escape>Paris<escape>, days:3}`
 * (FunctionGemma), `{city: 'Paris'}`. Strings in the format's delimiter pairs
 * are read raw; `"…"` and `'…'` strings with backslash escapes; keys may be
 * unquoted. The literal is rewritten as JSON in one pass, then read by the
 * lenient JSON reader (Python literals, trailing commas).
 */

const KEY_RE = /[A-Za-z_$][\w$.-]*/y;

/** A `'…'` string (backslash escapes) as JSON text, and where it ends; undefined when it never closes. */
function singleQuoted(text: string, from: number, limit: number): { json: string; end: number } | undefined {
  let out = '';
  let i = from + 1;
  while (i < limit) {
    const c = text.charAt(i);
    if (c === "'") return { json: JSON.stringify(out), end: i + 1 };
    if (c === '\\' && i + 1 < limit) {
      const next = text.charAt(i + 1);
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
      i += 2;
      continue;
    }
    out += c;
    i += 1;
  }
  return undefined;
}

/** `"…"` copied as it is (escapes included); undefined when it never closes. */
function doubleQuotedEnd(text: string, from: number, limit: number): number | undefined {
  let i = from + 1;
  while (i < limit) {
    const c = text.charAt(i);
    if (c === '"') return i + 1;
    i += c === '\\' ? 2 : 1;
  }
  return undefined;
}

/** After `{` or `,` (skipping space), a key may stand unquoted. */
function keyPosition(prev: string): boolean {
  return prev === '{' || prev === ',';
}

export type LiteralReading =
  { ok: true; value: JsonValue; repairs: RepairKind[] } | Extract<ArgsReading, { ok: false }>;

/** Any value written as an object literal (an object, a list of them…). */
export function readLiteralValue(
  text: string,
  span: Span,
  delimiters: readonly (readonly [string, string])[],
): LiteralReading {
  const pairs = delimiters.filter(([open, close]) => open !== '' && close !== '' && open !== '"' && open !== "'");
  const parts: string[] = [];
  let prev = '';
  let i = span.start;
  while (i < span.end) {
    const c = text.charAt(i);
    const pair = pairs.find(([open]) => text.startsWith(open, i));
    if (pair !== undefined) {
      const close = text.indexOf(pair[1], i + pair[0].length);
      if (close < 0 || close + pair[1].length > span.end)
        return {
          ok: false,
          message: `the string opened by ${pair[0]} is never closed by ${pair[1]}`,
          position: i,
          cut: span.end === text.length,
        };
      parts.push(JSON.stringify(text.slice(i + pair[0].length, close)));
      i = close + pair[1].length;
      prev = '"';
      continue;
    }
    if (c === '"') {
      const end = doubleQuotedEnd(text, i, span.end);
      if (end === undefined)
        return { ok: false, message: 'a string is never closed', position: i, cut: span.end === text.length };
      parts.push(text.slice(i, end));
      i = end;
      prev = '"';
      continue;
    }
    if (c === "'") {
      const read = singleQuoted(text, i, span.end);
      if (read === undefined)
        return { ok: false, message: 'a string is never closed', position: i, cut: span.end === text.length };
      parts.push(read.json);
      i = read.end;
      prev = '"';
      continue;
    }
    if (keyPosition(prev)) {
      KEY_RE.lastIndex = i;
      const key = KEY_RE.exec(text);
      if (key !== null && key.index + key[0].length <= span.end) {
        const after = key.index + key[0].length;
        let j = after;
        while (j < span.end && /\s/.test(text.charAt(j))) j += 1;
        if (text.charAt(j) === ':') {
          parts.push(JSON.stringify(key[0]));
          i = after;
          prev = '"';
          continue;
        }
      }
    }
    parts.push(c);
    if (!/\s/.test(c)) prev = c;
    i += 1;
  }
  const json = parts.join('').trim();
  if (json === '') return { ok: true, value: {}, repairs: [] };
  const parsed = parseLenient(json, { allowCloseAtEnd: false });
  if (!parsed.ok)
    return { ok: false, message: `not an object literal (${parsed.message})`, position: span.start, cut: false };
  // Unquoted keys and other quotes are this grammar's own syntax, not repairs.
  const repairs = parsed.repairs.filter((kind) => kind !== 'quoted_keys' && kind !== 'single_quoted_strings');
  return { ok: true, value: parsed.value, repairs };
}

export function readObjectLiteral(
  text: string,
  span: Span,
  delimiters: readonly (readonly [string, string])[],
): ArgsReading {
  const read = readLiteralValue(text, span, delimiters);
  if (!read.ok) return read;
  if (!isJsonObject(read.value))
    return { ok: false, message: 'the arguments are not an object', position: span.start, cut: false };
  return { ok: true, args: read.value, repairs: read.repairs };
}
