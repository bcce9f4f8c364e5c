import { jsonrepair } from 'jsonrepair';
import type { JsonValue } from '../core/json.ts';
import { parseJson } from '../core/parse-json.ts';
import {
  DEFAULT_MAX_READ_DEPTH,
  outOfRangeMessage,
  parseLenient,
  parseLenientObjects,
  tooDeepMessage,
} from './lenient-json.ts';
import type { ReadLimit } from './lenient-json.ts';
import { normalizeTypographicQuotes } from './typographic-quotes.ts';
import { indexOfOpener, scanRegion } from './scanner.ts';
import type { RepairKind } from './types.ts';

export type RepairJsonResult =
  { ok: true; value: JsonValue; repairs: RepairKind[] } | { ok: false; error: { message: string; position: number } };

export interface ReadJsonOptions {
  /** Close a string and brackets left open at the very end (false when the text was cut by a token limit). */
  allowCloseAtEnd: boolean;
  /** Try jsonrepair when the lenient reader fails (default true; prose braces that name no tool skip it). */
  lastResort?: boolean;
  /** Nesting allowed (the top level is depth 1). Default DEFAULT_MAX_READ_DEPTH. */
  maxDepth?: number;
}

export type ReadJsonResult =
  | { ok: true; value: JsonValue; repairs: RepairKind[]; closedAtEnd: boolean }
  | { ok: false; message: string; position: number; atEnd: boolean; limit?: ReadLimit };

/** Above this length JSON.parse is tried before the lenient reader. */
const STRICT_FIRST_LENGTH = 16 * 1024;
const NULLISH_WORD_RE = /\b(?:null|None|NULL|undefined|nil)\b/g;
const QUOTE_RE = /["']/;
const NUMBER_LITERAL_RE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE_RE = /\s/;
const ARRAY_ITEM_STARTS = new Set([
  '"',
  '{',
  '[',
  ']',
  '-',
  't',
  'f',
  'n',
  '0',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
]);
/**
 * jsonrepair recurses once per `{`, `[`, `(` (a wrapping function call) and
 * `+` (string concatenation) it reads, and overflows the stack past about
 * 3,400 of them. It only gets texts with at most this many, counted anywhere
 * (a bound that holds whatever it decides is a string).
 */
const JSONREPAIR_MAX_NESTING_CHARS = 1_000;
/**
 * jsonrepair slows down quadratically on some long broken texts (runs of
 * stray quotes: 200 KB take over 20 s), so longer texts do without it. Real
 * arguments that long are written by a model that writes JSON well enough
 * for the lenient reader.
 */
const JSONREPAIR_MAX_CHARS = 64 * 1024;

/**
 * Cheap look at the first two tokens: JSON.parse is only worth a try (and a
 * thrown SyntaxError, which is slow) when they can start strict JSON.
 */
function mayBeStrict(text: string): boolean {
  let i = 0;
  while (i < text.length && SPACE_RE.test(text.charAt(i))) i += 1;
  const first = text.charAt(i);
  if (first !== '{' && first !== '[') return true;
  i += 1;
  while (i < text.length && SPACE_RE.test(text.charAt(i))) i += 1;
  const second = text.charAt(i);
  return first === '{' ? second === '"' || second === '}' : ARRAY_ITEM_STARTS.has(second);
}

function countNulls(value: JsonValue): number {
  let count = 0;
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null) count += 1;
    // A loop, not push(...items): spreading a huge array overflows the call stack.
    else if (typeof item === 'object' && item !== undefined)
      for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push(child);
  }
  return count;
}

/**
 * The last stage: jsonrepair fixes what the lenient reader refuses (missing
 * commas, escaped quotes around the whole document, concatenated strings…).
 * Its output is rejected when it holds more nulls than the input wrote: that
 * is jsonrepair filling a missing value, and repairs must not invent values.
 */
function jsonrepairStage(text: string): JsonValue | undefined {
  if (text.length > JSONREPAIR_MAX_CHARS || countNestingChars(text) > JSONREPAIR_MAX_NESTING_CHARS) return undefined;
  // jsonrepair closes what the text left open, cut strings and numbers too: open text is the lenient reader's alone.
  const start = indexOfOpener(text, 0);
  if (start >= 0 && !scanRegion(text, start).closed) return undefined;
  try {
    // parseJson reads JSON text: a JSON value, typed unknown as JSON.parse's result is.
    const value = parseJson(jsonrepair(text)) as JsonValue;
    const written = text.match(NULLISH_WORD_RE)?.length ?? 0;
    return countNulls(value) > written ? undefined : value;
  } catch {
    return undefined;
  }
}

function countNestingChars(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // { [ ( +
    if (c === 0x7b || c === 0x5b || c === 0x28 || c === 0x2b) count += 1;
  }
  return count;
}

/**
 * The limit a value read from text breaks: depth or a non-finite number (its
 * size is bounded by the text's). Lean on purpose, unlike checkJsonShape (a
 * path per value): it runs over every large text, and the lenient reader or
 * `locate` says where.
 */
function brokenLimit(value: JsonValue, maxDepth: number): ReadLimit | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'not_finite';
  // Only containers go on the stack: pushing every scalar makes a wide array many times slower.
  const containers: JsonValue[] = [value];
  const depths: number[] = [0];
  for (let item = containers.pop(); item !== undefined; item = containers.pop()) {
    const depth = depths.pop() ?? 0;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= maxDepth) return 'too_deep';
    const children = Array.isArray(item) ? item : Object.values(item);
    for (let i = 0; i < children.length; i += 1) {
      const child = children[i];
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) return 'not_finite';
      } else if (child !== null && typeof child === 'object') {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

/** Whether JSON.parse may read `text` without a result past the depth limit (it slows down badly on deep input). */
function shallowEnough(text: string, maxDepth: number): boolean {
  let i = 0;
  while (i < text.length && SPACE_RE.test(text.charAt(i))) i += 1;
  const first = text.charAt(i);
  return (first !== '{' && first !== '[') || scanRegion(text, i).maxDepth <= maxDepth;
}

/**
 * Where jsonrepair's output broke a limit, in the text it was given: the
 * first opener past `maxDepth`, or the first number literal out of range,
 * outside double-quoted strings. Undefined when the text does not show it plainly.
 */
function locate(text: string, code: ReadLimit, maxDepth: number): { position: number; literal?: string } | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      depth += 1;
      if (code === 'too_deep' && depth > maxDepth) return { position: i };
    } else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
    else if (code === 'not_finite' && (c === '-' || (c >= '0' && c <= '9'))) {
      NUMBER_LITERAL_RE.lastIndex = i;
      const literal = NUMBER_LITERAL_RE.exec(text)?.[0];
      if (literal === undefined) continue;
      if (!Number.isFinite(Number(literal))) return { position: i, literal };
      i += literal.length - 1;
    }
  }
  return undefined;
}

function limitFailure(text: string, code: ReadLimit, maxDepth: number): ReadFailure {
  const found = locate(text, code, maxDepth);
  const message = code === 'too_deep' ? tooDeepMessage(maxDepth) : outOfRangeMessage(found?.literal);
  return { ok: false, message, position: found?.position ?? 0, atEnd: false, limit: code };
}

type ReadFailure = Extract<ReadJsonResult, { ok: false }>;

/** Several objects in a row (`readJsonObjects`); `starts` are their offsets in the text. */
export type ReadJsonObjectsResult =
  { ok: true; values: JsonValue[]; starts: number[]; repairs: RepairKind[]; closedAtEnd: boolean } | ReadFailure;

/**
 * The stages shared by readJson and readJsonObjects: strict JSON, the plain
 * lenient read, the extended read (`several`: objects in a row too), then
 * jsonrepair. A failure is the plain read's, whose position is where the
 * text first stops being JSON, unless a later stage hit a limit or the end.
 */
function readStages(text: string, options: ReadJsonOptions, several: boolean): ReadJsonObjectsResult {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_READ_DEPTH;
  const single = (value: JsonValue, repairs: RepairKind[], closedAtEnd: boolean): ReadJsonObjectsResult => ({
    ok: true,
    values: [value],
    starts: [0],
    repairs,
    closedAtEnd,
  });
  // Large texts: JSON.parse first, it is native and fast. Small ones (every
  // real tool call): the lenient reader first — on valid JSON it returns
  // exactly JSON.parse's value with no repairs, and a thrown SyntaxError per
  // repaired call costs more than the whole parse.
  // Past a limit, the lenient reader below fails at the very spot, with its position.
  if (text.length > STRICT_FIRST_LENGTH && mayBeStrict(text) && shallowEnough(text, maxDepth)) {
    let value: JsonValue | undefined;
    try {
      // parseJson reads JSON text: a JSON value, typed unknown as JSON.parse's result is.
      value = parseJson(text) as JsonValue;
    } catch {
      // Not strict JSON: fall through to the repair stages.
    }
    if (value !== undefined && brokenLimit(value, maxDepth) === undefined) return single(value, [], false);
  }
  const plain = parseLenient(text, { allowCloseAtEnd: options.allowCloseAtEnd, maxDepth });
  if (plain.ok) return single(plain.value, plain.repairs, plain.closedAtEnd);
  // A limit is a refusal, not a slip for a repair to read around; a failure at the end is a cut.
  if (plain.atEnd || plain.limit !== undefined) return plain;
  // The extended repairs only fire where the plain read fails, but its quote
  // look-ahead reads some broken texts differently: it comes second.
  const lenientOptions = { allowCloseAtEnd: options.allowCloseAtEnd, maxDepth, extended: true };
  const extended = several ? parseLenientObjects(text, lenientOptions) : parseLenient(text, lenientOptions);
  if (extended.ok)
    return 'values' in extended ? extended : single(extended.value, extended.repairs, extended.closedAtEnd);
  if (extended.atEnd || extended.limit !== undefined) return extended;
  const curly = normalizeTypographicQuotes(text);
  if (curly !== undefined) {
    const read = parseLenient(curly, lenientOptions);
    if (read.ok)
      return single(read.value, [...new Set([...read.repairs, 'typographic_quotes' as const])], read.closedAtEnd);
  }
  if (options.lastResort === false || !QUOTE_RE.test(text)) return plain;
  const repaired = jsonrepairStage(text);
  if (repaired === undefined) return plain;
  const broken = brokenLimit(repaired, maxDepth);
  if (broken !== undefined) return limitFailure(text, broken, maxDepth);
  return single(repaired, ['jsonrepair'], false);
}

/**
 * Reads one JSON value: valid JSON exactly as JSON.parse reads it (no
 * repairs), else with the lenient reader's repairs (unescaped inner quotes,
 * triple quotes, a missing closer, literal `\n` between tokens, doubled
 * braces among them), else with jsonrepair. Whatever the stage, a value
 * nested past `maxDepth` or holding a number out of range is a failure (with
 * `limit` set). Never throws.
 */
export function readJson(text: string, options: ReadJsonOptions): ReadJsonResult {
  const result = readStages(text, options, false);
  if (!result.ok) return result;
  return { ok: true, value: result.values[0] ?? null, repairs: result.repairs, closedAtEnd: result.closedAtEnd };
}

/**
 * Like readJson, but also reads several objects in a row, separated by
 * whitespace or commas (`{"a": 1}{"a": 2}`), before jsonrepair is tried.
 * Never throws.
 */
export function readJsonObjects(text: string, options: ReadJsonOptions): ReadJsonObjectsResult {
  return readStages(text, options, true);
}

/**
 * Parses `text` as JSON, repairing what models commonly get wrong. Valid JSON
 * comes back unchanged with no repairs; otherwise `repairs` lists what was
 * fixed, or `error` says where reading failed.
 */
export function repairJson(text: string): RepairJsonResult {
  const result = readJson(text, { allowCloseAtEnd: true });
  if (result.ok) return { ok: true, value: result.value, repairs: result.repairs };
  return { ok: false, error: { message: result.message, position: result.position } };
}
