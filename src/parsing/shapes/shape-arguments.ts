import { isJsonObject } from '../../core/json.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { skipSpace } from '../envelopes/envelope.ts';
import { GLM_KEY, PARAMETER } from '../envelopes/xml-families.ts';
import { lexTags } from '../envelopes/xml-grammar.ts';
import { readGlmPairs, readParameterTags, xmlValue } from '../envelopes/xml-params.ts';
import type { ArgsRead } from '../envelopes/xml-params.ts';
import { setJsonKey } from '../../core/set-json-key.ts';
import { parsePythonicCalls, pythonicCallsEnd } from '../pythonic.ts';
import { readJson } from '../repair-json.ts';
import { placeholderAt } from '../resolve-payload.ts';
import { scanRegion } from '../scanner.ts';
import type { RepairKind, Span } from '../types.ts';

/**
 * The argument structure written right after a tool's name, in any of the
 * grammars models use: a JSON or JSON-like object (`{"city": "Paris"}`,
 * `{city: "Paris"}`), a parenthesised call (`(city="Paris")`, `({…})`), XML
 * parameters (`<parameter=city>Paris</parameter>`, `<arg_key>…`), `key=value`
 * pairs to the end of the line, or a fenced JSON block on the next line.
 * Every piece of it must be read: what is left over makes it a failure.
 */

export type StructureReading =
  | { status: 'read'; args: JsonObject; repairs: RepairKind[]; end: number }
  /** `cut`: the text ended inside it. `expected` says what a call there needs. */
  | { status: 'failed'; message: string; position: number; cut: boolean; end: number; expected: string };

/** A tool name with an argument structure after it (or a tag named after the tool), as read-shapes.ts finds it. */
export interface Shape {
  kind: RepairKind;
  span: Span;
  name: string;
  reading: StructureReading;
  /** How the name was cleaned (`functions.get_weather:0`). */
  nameRepairs: RepairKind[];
  /** In call position: a failure is a failed call; otherwise the shape is a mention. */
  callPosition: boolean;
}

export interface StructureOptions {
  /** The reply hit its length limit: nothing left open at the end is closed. */
  truncated: boolean;
}

/** How far an argument structure is read: longer is no shape written by hand. */
export const DEFAULT_MAX_SHAPE_CHARS = 64 * 1024;

const JSON_EXPECTED = 'a JSON object of arguments, like {"key": "value"}';
const KEY_VALUE_RE = /([A-Za-z_][\w-]{0,63})[ \t]*=[ \t]*/y;
const BARE_VALUE_RE = /[^\s,"'{}[\]()<>]+/y;

function failed(
  message: string,
  where: { position: number; cut: boolean; end: number },
  expected = JSON_EXPECTED,
): StructureReading {
  return { status: 'failed', message, ...where, expected };
}

function readObjectAt(text: string, start: number, options: StructureOptions): StructureReading {
  const limit = Math.min(text.length, start + DEFAULT_MAX_SHAPE_CHARS);
  const region = scanRegion(text, start, limit);
  const reachesEnd = !region.closed && region.end === text.length;
  if (!region.closed && !reachesEnd)
    return failed('the object does not close', { position: start, cut: false, end: region.end });
  const placeholder = placeholderAt(text, region);
  if (placeholder >= 0)
    return failed('it holds a placeholder ("..." where a value belongs)', {
      position: placeholder,
      cut: false,
      end: region.end,
    });
  const read = readJson(text.slice(start, region.end), { allowCloseAtEnd: !options.truncated, lastResort: true });
  if (!read.ok)
    return failed(read.message, { position: start + read.position, cut: read.atEnd && reachesEnd, end: region.end });
  if (!isJsonObject(read.value))
    return failed('the arguments are not an object', { position: start, cut: false, end: region.end });
  return { status: 'read', args: read.value, repairs: read.repairs, end: region.end };
}

/** `(city="Paris", days=3)` or `({"city": "Paris"})`. */
function readParenthesised(text: string, open: number, options: StructureOptions): StructureReading {
  const inner = skipSpace(text, open + 1);
  if (text.charAt(inner) === '{') {
    const object = readObjectAt(text, inner, options);
    if (object.status !== 'read') return object;
    const close = skipSpace(text, object.end);
    if (text.charAt(close) !== ')')
      return failed(
        "expected ')' after the arguments object",
        { position: close, cut: close >= text.length, end: close },
        'name({"key": "value"})',
      );
    return { ...object, end: close + 1 };
  }
  // The pythonic reader wants a name before the parenthesis: a stand-in one keeps offsets plain.
  const window = `f${text.slice(open, Math.min(text.length, open + DEFAULT_MAX_SHAPE_CHARS))}`;
  const toText = (p: number): number => open + p - 1;
  const end = pythonicCallsEnd(window, 0);
  const parsed = parsePythonicCalls(window, 0, end > 0 ? end : window.length);
  const expected = 'name(key="value", other=1)';
  if (!parsed.ok) {
    const cut = parsed.atEnd && open + window.length - 1 === text.length;
    return failed(parsed.message, { position: toText(parsed.position), cut, end: text.length }, expected);
  }
  const call = parsed.calls[0];
  if (parsed.calls.length !== 1 || call === undefined)
    return failed('expected one call', { position: open, cut: false, end: toText(end) }, expected);
  return { status: 'read', args: call.arguments, repairs: [], end: toText(end) };
}

/** The end of the paragraph holding `pos` (a blank line or the end of the text), bounded. */
function paragraphEnd(text: string, pos: number): number {
  const limit = Math.min(text.length, pos + DEFAULT_MAX_SHAPE_CHARS);
  const blank = text.slice(pos, limit).search(/\n[ \t]*\n/);
  return blank < 0 ? limit : pos + blank;
}

/** XML parameters; every argument tag up to the end of the paragraph must be read. */
function readXmlParameters(text: string, start: number, options: StructureOptions): StructureReading | undefined {
  const end = paragraphEnd(text, start);
  const tags = lexTags(text, start, end);
  const first = tags[0];
  if (first === undefined || first.start !== start || first.closing) return undefined;
  let read: ArgsRead;
  if (first.local === PARAMETER) read = readParameterTags(text, tags, { from: 0, end });
  else if (first.local === GLM_KEY) read = readGlmPairs(text, tags, { from: 0, end });
  else return undefined;
  const expected =
    first.local === PARAMETER
      ? '<parameter=key>value</parameter> for each argument'
      : '<arg_key>key</arg_key><arg_value>value</arg_value> for each argument';
  const consumed = new Set(read.tags);
  const leftover = tags.find((tag) => !tag.sentinel && !consumed.has(tag));
  if (leftover !== undefined)
    return failed(
      `the argument markup at position ${leftover.start} is not ` +
        `part of any argument (a closer is missing or misspelled)`,
      { position: leftover.start, cut: false, end },
      expected,
    );
  // A value ending in a misspelled closer (`C</paramter>`) swallowed markup: no call with that in a value.
  const swallowed = read.repairs.has('missing_closer')
    ? Object.values(read.args).find((v) => typeof v === 'string' && /<\/[A-Za-z_]/.test(v))
    : undefined;
  if (swallowed !== undefined)
    return failed(
      "an argument's closer is misspelled, so its value runs into the markup after it",
      { position: start, cut: false, end },
      expected,
    );
  if (read.reachesEnd && options.truncated)
    return failed('the text ends inside an argument', { position: text.length, cut: true, end: text.length }, expected);
  const last = read.tags.at(-1);
  const stop = read.reachesEnd || last === undefined || last.closing === false ? end : last.end;
  return { status: 'read', args: read.args, repairs: [...read.repairs], end: stop };
}

/** `city="Paris" days=3` (space or comma separated) up to the end of the line. */
function readKeyValues(text: string, start: number): StructureReading | undefined {
  const lineEnd = text.indexOf('\n', start);
  const end = Math.min(lineEnd < 0 ? text.length : lineEnd, start + DEFAULT_MAX_SHAPE_CHARS);
  KEY_VALUE_RE.lastIndex = start;
  if (KEY_VALUE_RE.exec(text) === null) return undefined;
  // Read as a Python call's keyword arguments when commas separate them; a space works as a comma here.
  const args: JsonObject = {};
  let pos = start;
  while (pos < end) {
    KEY_VALUE_RE.lastIndex = pos;
    const m = KEY_VALUE_RE.exec(text);
    const key = m?.[1];
    if (m === null || key === undefined || m.index !== pos)
      return failed('expected key=value', { position: pos, cut: false, end }, 'key="value" pairs');
    pos += m[0].length;
    const value = readKeyValue(text, pos, end);
    if (value === undefined)
      return failed(
        `the value of "${key}" cannot be read`,
        { position: pos, cut: pos >= text.length, end },
        'key="value" pairs',
      );
    setJsonKey(args, key, value.value);
    pos = value.end;
    while (pos < end && (text.charAt(pos) === ' ' || text.charAt(pos) === '\t' || text.charAt(pos) === ',')) pos += 1;
  }
  return { status: 'read', args, repairs: [], end };
}

function readKeyValue(text: string, pos: number, end: number): { value: JsonValue; end: number } | undefined {
  const c = text.charAt(pos);
  let stop = -1;
  if (c === '"' || c === "'") {
    for (let i = pos + 1; i < end; i += 1) {
      const d = text.charAt(i);
      if (d === '\\') i += 1;
      else if (d === c) {
        stop = i + 1;
        break;
      }
    }
  } else if (c === '{' || c === '[') {
    const region = scanRegion(text, pos, end);
    if (region.closed) stop = region.end;
  } else {
    BARE_VALUE_RE.lastIndex = pos;
    const m = BARE_VALUE_RE.exec(text);
    if (m === null || m.index !== pos) return undefined;
    const bareEnd = Math.min(end, pos + m[0].length);
    return { value: xmlValue(text.slice(pos, bareEnd)), end: bareEnd };
  }
  if (stop < 0) return undefined;
  const read = readJson(text.slice(pos, stop), { allowCloseAtEnd: false, lastResort: false });
  return read.ok ? { value: read.value, end: stop } : undefined;
}

/** A fenced block (```json … ```) holding the object, as DeepSeek V3 writes it after the name. */
function readFencedObject(text: string, start: number, options: StructureOptions): StructureReading | undefined {
  const infoEnd = text.indexOf('\n', start);
  if (infoEnd < 0 || !/^```[\w-]*[ \t]*$/.test(text.slice(start, infoEnd))) return undefined;
  const open = skipSpace(text, infoEnd + 1);
  if (text.charAt(open) !== '{') return undefined;
  const object = readObjectAt(text, open, options);
  if (object.status !== 'read') return object;
  const close = skipSpace(text, object.end);
  if (!text.startsWith('```', close))
    return failed('the fence around the arguments does not close', {
      position: close,
      cut: close >= text.length,
      end: close,
    });
  return { ...object, repairs: [...object.repairs, 'unwrapped_fence'], end: close + 3 };
}

/** The structure at `pos`, or undefined when nothing there opens one. */
export function readStructure(text: string, pos: number, options: StructureOptions): StructureReading | undefined {
  const c = text.charAt(pos);
  if (c === '{') return readObjectAt(text, pos, options);
  if (c === '(') return readParenthesised(text, pos, options);
  if (c === '<') return readXmlParameters(text, pos, options);
  if (c === '`') return readFencedObject(text, pos, options);
  return readKeyValues(text, pos);
}
