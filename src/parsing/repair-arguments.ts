import { isJsonObject } from '../core/json.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { jsonEqual } from '../core/json-equal.ts';
import { checkJsonShape, DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_JSON_NODES } from '../core/json-shape.ts';
import { readJsonObjects } from './repair-json.ts';
import type { ReadJsonObjectsResult } from './repair-json.ts';
import type { RepairKind } from './types.ts';

/**
 * Why arguments could not be used: unreadable JSON, cut off by the length
 * limit, past a size/depth/number limit, not an object, or several different
 * objects in a row.
 */
export type ArgumentsFailureReason = 'invalid_json' | 'cut' | 'refused' | 'not_object' | 'several_objects';

export type RepairArgumentsResult =
  | { ok: true; arguments: JsonObject; repairs: RepairKind[] }
  | { ok: false; message: string; position: number; reason: ArgumentsFailureReason };

/** Every object of an arguments string (several when a server concatenated them). */
export type ArgumentObjectsResult =
  | { ok: true; objects: JsonObject[]; repairs: RepairKind[] }
  | { ok: false; message: string; position: number; reason: ArgumentsFailureReason };

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

const FENCE_RE = /^```[\w-]*[ \t]*\n?([\s\S]*?)\n?[ \t]*```$/d;

type Failure = Extract<ArgumentObjectsResult, { ok: false }>;

/** The objects and where each starts in the raw string (the string's start for decoded ones). */
type ObjectsRead = { ok: true; objects: JsonObject[]; starts: number[]; repairs: RepairKind[] } | Failure;

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/**
 * A failure of a read, `offset` placing its position in the raw string: a
 * limit is said as such, a cut as a cut, anything else is invalid JSON.
 */
function readFailure(
  failure: Extract<ReadJsonObjectsResult, { ok: false }>,
  at: { where: string; offset: number; truncated: boolean },
): Failure {
  const { where, truncated } = at;
  const position = at.offset + failure.position;
  if (failure.limit !== undefined)
    return {
      ok: false,
      message: `Tool arguments refused${where}: ${failure.message} (at character ${position}).`,
      position,
      reason: 'refused',
    };
  if (failure.atEnd && truncated) {
    return {
      ok: false,
      message:
        `Tool arguments were cut off at character ${position}${where}: the reply ` +
        `hit its length limit before the JSON was complete (${failure.message}).`,
      position,
      reason: 'cut',
    };
  }
  const cut = failure.atEnd ? ' The arguments end before the JSON is complete (the reply was cut off).' : '';
  return {
    ok: false,
    message: `Invalid JSON in tool arguments${where} at character ${position}: ${failure.message}.${cut}`,
    position,
    reason: 'invalid_json',
  };
}

/** The text to read and where it starts in `raw`: trimmed, out of a code fence. */
function unwrap(raw: string, repairs: Set<RepairKind>): { text: string; offset: number } {
  const text = raw.trim();
  const offset = raw.length - raw.trimStart().length;
  const fenced = FENCE_RE.exec(text);
  if (fenced === null) return { text, offset };
  repairs.add('unwrapped_fence');
  const inner = fenced[1] ?? '';
  const innerStart = fenced.indices?.[1]?.[0] ?? 0;
  return { text: inner.trim(), offset: offset + innerStart + (inner.length - inner.trimStart().length) };
}

/** Decodes JSON strings holding JSON (double encoding), up to MAX_DECODE_LAYERS. */
function decodeLayers(
  values: JsonValue[],
  repairs: Set<RepairKind>,
  limits: { maxDepth: number; offset: number },
): JsonValue[] | Failure {
  const { maxDepth, offset } = limits;
  let current = values;
  for (let layer = 0; layer < MAX_DECODE_LAYERS && current.length === 1 && typeof current[0] === 'string'; layer += 1) {
    const inner = readJsonObjects(current[0], { allowCloseAtEnd: false, maxDepth });
    // A string that is not JSON stays a string (and is refused below); one past a limit is refused as such.
    if (!inner.ok) {
      // Positions inside a decoded string do not map to the raw text: the string's start stands for them.
      if (inner.limit !== undefined)
        return readFailure(
          { ...inner, position: 0 },
          { where: ' (in the JSON string they hold)', offset, truncated: false },
        );
      break;
    }
    repairs.add('decoded_double_encoding');
    for (const kind of inner.repairs) repairs.add(kind);
    if (inner.values.length > 1) repairs.add('split_concatenated_objects');
    current = inner.values;
  }
  return current;
}

function readObjects(raw: string, options: RepairArgumentsOptions): ObjectsRead {
  const maxChars = options.maxChars ?? DEFAULT_MAX_ARGUMENTS_CHARS;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (raw.length > maxChars) {
    return {
      ok: false,
      message: `Tool arguments refused: they are longer than ${maxChars} characters.`,
      position: maxChars,
      reason: 'refused',
    };
  }
  const repairs = new Set<RepairKind>();
  const { text, offset } = unwrap(raw, repairs);
  if (text === '') return { ok: true, objects: [{}], starts: [offset], repairs: [...repairs] };
  const truncated = options.truncated === true;
  const read = readJsonObjects(text, { allowCloseAtEnd: !truncated, maxDepth });
  if (!read.ok) return readFailure(read, { where: '', offset, truncated });
  for (const kind of read.repairs) repairs.add(kind);
  if (read.values.length > 1) repairs.add('split_concatenated_objects');
  const values = decodeLayers(read.values, repairs, { maxDepth, offset });
  if (!Array.isArray(values)) return values;
  const objects: JsonObject[] = [];
  const starts: number[] = [];
  for (const [index, value] of values.entries()) {
    const position = offset + (values === read.values ? (read.starts[index] ?? 0) : 0);
    if (value === null && values.length === 1) {
      repairs.add('null_arguments_as_empty');
      return { ok: true, objects: [{}], starts: [position], repairs: [...repairs] };
    }
    if (!isJsonObject(value)) {
      return {
        ok: false,
        message: `Tool arguments must be a JSON object like {"key": "value"}, got ${describe(value)}.`,
        position,
        reason: 'not_object',
      };
    }
    const problem = checkJsonShape(value, { maxDepth, maxNodes: options.maxNodes ?? DEFAULT_MAX_JSON_NODES });
    if (problem !== undefined) {
      return {
        ok: false,
        message: `Tool arguments refused: ${problem.message}${problem.path === '' ? '' : ` (at ${problem.path})`}.`,
        position,
        reason: 'refused',
      };
    }
    objects.push(value);
    starts.push(position);
  }
  return { ok: true, objects, starts, repairs: [...repairs] };
}

/**
 * Reads a native tool call's `arguments` string (as providers send it in
 * `tool_calls[].function.arguments`) into every JSON object it holds: one,
 * or several in a row (`{"a": 1}{"a": 2}`, separated by nothing, whitespace,
 * commas or line breaks; repair split_concatenated_objects). Empty means no
 * arguments (one empty object); a JSON string holding JSON (double encoding)
 * is decoded; each object must be within the shape limits (length, depth,
 * size, finite numbers). Never throws.
 */
export function readArgumentObjects(raw: string, options: RepairArgumentsOptions = {}): ArgumentObjectsResult {
  const read = readObjects(raw, options);
  return read.ok ? { ok: true, objects: read.objects, repairs: read.repairs } : read;
}

/**
 * Reads a native tool call's `arguments` string into one object (see
 * readArgumentObjects). Several objects in a row are one object when they are
 * all the same (a server that repeated it); otherwise they are a failure:
 * which of them the model meant is not ours to guess.
 */
export function repairArguments(raw: string, options: RepairArgumentsOptions = {}): RepairArgumentsResult {
  const read = readObjects(raw, options);
  if (!read.ok) return read;
  const first = read.objects[0] ?? {};
  const other = read.objects.findIndex((object) => !jsonEqual(first, object));
  if (other < 0) return { ok: true, arguments: first, repairs: read.repairs };
  return {
    ok: false,
    message: `Tool arguments hold ${read.objects.length} JSON objects in a row; send one JSON object per call.`,
    position: read.starts[other] ?? 0,
    reason: 'several_objects',
  };
}
