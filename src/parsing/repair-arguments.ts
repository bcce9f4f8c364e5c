import { isJsonObject } from '../core/json.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { checkJsonShape, DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_JSON_NODES } from '../core/json-shape.ts';
import { readJson } from './repair-json.ts';
import type { ReadJsonResult } from './repair-json.ts';
import type { RepairKind } from './types.ts';

export type RepairArgumentsResult =
  | { ok: true; arguments: JsonObject; repairs: RepairKind[] }
  | { ok: false; message: string; position: number };

export interface RepairArgumentsOptions {
  /** The model hit its token limit: an arguments string left open is cut, not repairable. */
  truncated?: boolean;
  /** Longest arguments string read, in characters. Default DEFAULT_MAX_ARGUMENTS_CHARS. */
  maxChars?: number;
  /** Deepest nesting of the arguments (the object itself is level 1). Default DEFAULT_MAX_JSON_DEPTH (64). */
  maxDepth?: number;
  /** Most values (objects, arrays and scalars) in the arguments. Default DEFAULT_MAX_JSON_NODES (100,000). */
  maxNodes?: number;
}

/**
 * Longest `arguments` string read: a megabyte of arguments is far past any
 * real tool call, and reading (then validating, storing, logging) more is
 * what an attacker wants.
 */
export const DEFAULT_MAX_ARGUMENTS_CHARS = 1_000_000;

/** Some servers double-encode; more than this many layers is not arguments any more. */
const MAX_DECODE_LAYERS = 2;

const FENCE_RE = /^```[\w-]*[ \t]*\n?([\s\S]*?)\n?[ \t]*```$/;

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/** A failure of a read: a limit is said as such, anything else is invalid JSON. */
function readFailure(failure: Extract<ReadJsonResult, { ok: false }>, where: string): RepairArgumentsResult {
  if (failure.limit !== undefined) return { ok: false, message: `Tool arguments refused${where}: ${failure.message}.`, position: failure.position };
  const cut = failure.atEnd ? ' The arguments end before the JSON is complete (the reply was cut off).' : '';
  return { ok: false, message: `Invalid JSON in tool arguments${where}: ${failure.message}.${cut}`, position: failure.position };
}

/**
 * Reads a native tool call's `arguments` string (as providers send it in
 * `tool_calls[].function.arguments`). Empty means no arguments; a JSON string
 * holding JSON (double encoding) is decoded; the result must be an object
 * within the shape limits (length, depth, size, finite numbers).
 */
export function repairArguments(raw: string, options: RepairArgumentsOptions = {}): RepairArgumentsResult {
  const maxChars = options.maxChars ?? DEFAULT_MAX_ARGUMENTS_CHARS;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (raw.length > maxChars) {
    return { ok: false, message: `Tool arguments refused: they are longer than ${maxChars} characters.`, position: maxChars };
  }
  const repairs = new Set<RepairKind>();
  let text = raw.trim();
  if (text === '') return { ok: true, arguments: {}, repairs: [] };
  const fenced = FENCE_RE.exec(text);
  if (fenced !== null) {
    text = (fenced[1] ?? '').trim();
    repairs.add('unwrapped_fence');
    if (text === '') return { ok: true, arguments: {}, repairs: [...repairs] };
  }
  const first = readJson(text, { allowCloseAtEnd: options.truncated !== true, maxDepth });
  if (!first.ok) return readFailure(first, '');
  for (const kind of first.repairs) repairs.add(kind);
  let value = first.value;
  for (let layer = 0; layer < MAX_DECODE_LAYERS && typeof value === 'string'; layer += 1) {
    const inner = readJson(value, { allowCloseAtEnd: false, maxDepth });
    // A string that is not JSON stays a string (and is refused below); one past a limit is refused as such.
    if (!inner.ok) {
      if (inner.limit !== undefined) return readFailure(inner, ' (in the JSON string they hold)');
      break;
    }
    repairs.add('decoded_double_encoding');
    for (const kind of inner.repairs) repairs.add(kind);
    value = inner.value;
  }
  if (value === null) {
    repairs.add('null_arguments_as_empty');
    return { ok: true, arguments: {}, repairs: [...repairs] };
  }
  if (!isJsonObject(value)) {
    return {
      ok: false,
      message: `Tool arguments must be a JSON object like {"key": "value"}, got ${describe(value)}.`,
      position: 0,
    };
  }
  const problem = checkJsonShape(value, { maxDepth, maxNodes: options.maxNodes ?? DEFAULT_MAX_JSON_NODES });
  if (problem !== undefined) {
    return { ok: false, message: `Tool arguments refused: ${problem.message}${problem.path === '' ? '' : ` (at ${problem.path})`}.`, position: 0 };
  }
  return { ok: true, arguments: value, repairs: [...repairs] };
}
