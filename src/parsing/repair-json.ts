import { jsonrepair } from 'jsonrepair';
import type { JsonValue } from '../core/json.ts';
import { parseLenient } from './lenient-json.ts';
import { indexOfOpener, scanRegion } from './scanner.ts';
import type { RepairKind } from './types.ts';

export type RepairJsonResult =
  | { ok: true; value: JsonValue; repairs: RepairKind[] }
  | { ok: false; error: { message: string; position: number } };

export interface ReadJsonOptions {
  /** Close a string and brackets left open at the very end (false when the text was cut by a token limit). */
  allowCloseAtEnd: boolean;
  /** Try jsonrepair when the lenient reader fails (default true; prose braces that name no tool skip it). */
  lastResort?: boolean;
}

export type ReadJsonResult =
  | { ok: true; value: JsonValue; repairs: RepairKind[]; closedAtEnd: boolean }
  | { ok: false; message: string; position: number; atEnd: boolean };

/** Above this length JSON.parse is tried before the lenient reader. */
const STRICT_FIRST_LENGTH = 16 * 1024;
const NULLISH_WORD_RE = /\b(?:null|None|NULL|undefined|nil)\b/g;
const QUOTE_RE = /["']/;
const SPACE_RE = /\s/;
const ARRAY_ITEM_STARTS = new Set(['"', '{', '[', ']', '-', 't', 'f', 'n', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

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
    else if (Array.isArray(item)) stack.push(...item);
    else if (typeof item === 'object' && item !== undefined) stack.push(...Object.values(item));
  }
  return count;
}

/**
 * The last stage: jsonrepair fixes what the lenient reader refuses (missing
 * commas, escaped quotes around the whole document, concatenated strings…).
 * Its output is rejected when it holds more nulls than the input wrote: that
 * is jsonrepair filling a missing value, and repairs must not invent values.
 */
function jsonrepairStage(text: string, allowCloseAtEnd: boolean): JsonValue | undefined {
  if (!allowCloseAtEnd) {
    const start = indexOfOpener(text, 0);
    if (start >= 0 && !scanRegion(text, start).closed) return undefined;
  }
  try {
    const value = JSON.parse(jsonrepair(text)) as JsonValue;
    const written = text.match(NULLISH_WORD_RE)?.length ?? 0;
    return countNulls(value) > written ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * Reads one JSON value: valid JSON exactly as JSON.parse reads it (no
 * repairs), else with the lenient reader's repairs, else with jsonrepair.
 * Never throws.
 */
export function readJson(text: string, options: ReadJsonOptions): ReadJsonResult {
  // Large texts: JSON.parse first, it is native and fast. Small ones (every
  // real tool call): the lenient reader first — on valid JSON it returns
  // exactly JSON.parse's value with no repairs, and a thrown SyntaxError per
  // repaired call costs more than the whole parse.
  if (text.length > STRICT_FIRST_LENGTH && mayBeStrict(text)) {
    try {
      return { ok: true, value: JSON.parse(text) as JsonValue, repairs: [], closedAtEnd: false };
    } catch {
      // Not strict JSON: fall through to the repair stages.
    }
  }
  const lenient = parseLenient(text, { allowCloseAtEnd: options.allowCloseAtEnd });
  if (lenient.ok || lenient.atEnd || options.lastResort === false || !QUOTE_RE.test(text)) return lenient;
  const repaired = jsonrepairStage(text, options.allowCloseAtEnd);
  if (repaired !== undefined) return { ok: true, value: repaired, repairs: ['jsonrepair'], closedAtEnd: false };
  return lenient;
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
