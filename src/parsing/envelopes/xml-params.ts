import type { JsonObject, JsonValue } from '../../core/json.ts';
import { parseLenient, setJsonKey } from '../lenient-json.ts';
import { createFinders, indexInTagHead } from './envelope.ts';
import type { Finders } from './envelope.ts';

/**
 * Argument tags of the XML-ish call formats: Qwen3-Coder `<parameter=k>v</parameter>`,
 * MiniMax `<parameter name="k">v</parameter>`, GLM-4.5 `<arg_key>k</arg_key><arg_value>v</arg_value>`.
 * Values are text; schema-guided coercion happens later (src/validation/).
 */

export interface XmlArgs {
  args: JsonObject;
  /** A value was still open when the range ended. */
  reachesEnd: boolean;
}


/**
 * A value is JSON when it parses as JSON (numbers, booleans, objects…), else
 * the text itself. The templates put values on their own lines: one line break
 * on each side is layout, not value.
 */
export function xmlValue(raw: string): JsonValue {
  let value = raw;
  if (value.startsWith('\r\n')) value = value.slice(2);
  else if (value.startsWith('\n')) value = value.slice(1);
  if (value.endsWith('\r\n')) value = value.slice(0, -2);
  else if (value.endsWith('\n')) value = value.slice(0, -1);
  const trimmed = value.trim();
  if (trimmed !== '' && /^[-\d[{"tfn]/.test(trimmed)) {
    // Strict JSON only (no repairs): "Paris" stays text, "3" becomes 3.
    const parsed = parseLenient(trimmed, { allowCloseAtEnd: false });
    if (parsed.ok && parsed.repairs.length === 0) return parsed.value;
  }
  return value;
}

/** `name="x"`, `name='x'` or `name=x` inside a tag's attribute text. */
export function attributeValue(attributes: string, attribute: string): string | undefined {
  const match = new RegExp(`${attribute}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>"']+))`).exec(attributes);
  if (match === null) return undefined;
  return (match[1] ?? match[2] ?? match[3] ?? '').trim();
}

interface TagSyntax {
  finders: Finders;
  open: string;
  close: string;
  /** Reads the key from the text between `open` and the tag's `>`. */
  key: (head: string) => string | undefined;
  /** Where a value without its closer ends at the latest. */
  stops: readonly string[];
}

function parseTagged(text: string, range: { start: number; end: number }, syntax: TagSyntax): XmlArgs {
  const { finders } = syntax;
  const args: JsonObject = {};
  const findOpen = finders(syntax.open);
  const findClose = finders(syntax.close);
  const stops = syntax.stops.map((stop) => finders(stop));
  let pos = range.start;
  let reachesEnd = false;
  while (pos < range.end) {
    const open = findOpen(pos);
    if (open < 0 || open >= range.end) break;
    const headStart = open + syntax.open.length;
    const gt = indexInTagHead(text, '>', headStart);
    if (gt < 0 || gt >= range.end) {
      reachesEnd = true;
      break;
    }
    const key = syntax.key(text.slice(headStart, gt));
    const valueStart = gt + 1;
    const close = findClose(valueStart);
    let valueEnd = range.end;
    for (const candidate of [close, findOpen(valueStart), ...stops.map((stop) => stop(valueStart))]) {
      if (candidate >= 0 && candidate < valueEnd) valueEnd = candidate;
    }
    if (valueEnd === range.end) reachesEnd = true;
    if (key !== undefined && key !== '') setJsonKey(args, key, xmlValue(text.slice(valueStart, valueEnd)));
    pos = valueEnd === close ? close + syntax.close.length : valueEnd;
  }
  return { args, reachesEnd };
}

function stripQuotes(name: string): string {
  return name.trim().replace(/^["']|["']$/g, '');
}

/** Qwen3-Coder: `<parameter=city>\nParis\n</parameter>` (the closer is sometimes left out). */
export function parseQwenParameters(text: string, range: { start: number; end: number }, finders: Finders = createFinders(text)): XmlArgs {
  return parseTagged(text, range, {
    finders,
    open: '<parameter=',
    close: '</parameter>',
    key: stripQuotes,
    stops: ['</function>', '</tool_call>'],
  });
}

/** MiniMax: `<parameter name="city">Paris</parameter>`. */
export function parseMinimaxParameters(text: string, range: { start: number; end: number }, finders: Finders = createFinders(text)): XmlArgs {
  return parseTagged(text, range, {
    finders,
    open: '<parameter',
    close: '</parameter>',
    key: (head) => attributeValue(head, 'name'),
    stops: ['</invoke>'],
  });
}

/** GLM-4.5: `<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>`. */
export function parseGlmArguments(text: string, range: { start: number; end: number }, finders: Finders = createFinders(text)): XmlArgs {
  const args: JsonObject = {};
  const findKey = finders('<arg_key>');
  const findValue = finders('<arg_value>');
  const findValueClose = finders('</arg_value>');
  let pos = range.start;
  let reachesEnd = false;
  while (pos < range.end) {
    const keyStart = findKey(pos);
    if (keyStart < 0 || keyStart >= range.end) break;
    const keyEnd = indexInTagHead(text, '</arg_key>', keyStart);
    if (keyEnd < 0 || keyEnd >= range.end) {
      reachesEnd = true;
      break;
    }
    const key = text.slice(keyStart + '<arg_key>'.length, keyEnd).trim();
    const valueOpen = findValue(keyEnd);
    const nextKey = findKey(keyEnd);
    if (valueOpen < 0 || valueOpen >= range.end || (nextKey >= 0 && nextKey < valueOpen)) {
      pos = keyEnd;
      continue;
    }
    const valueStart = valueOpen + '<arg_value>'.length;
    const close = findValueClose(valueStart);
    const valueEnd = close >= 0 && close < range.end ? close : range.end;
    if (valueEnd === range.end) reachesEnd = true;
    if (key !== '') setJsonKey(args, key, xmlValue(text.slice(valueStart, valueEnd)));
    pos = valueEnd === close ? close + '</arg_value>'.length : valueEnd;
  }
  return { args, reachesEnd };
}
