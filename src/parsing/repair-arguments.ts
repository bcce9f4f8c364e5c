import { isJsonObject } from '../core/json.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { readJson } from './repair-json.ts';
import type { RepairKind } from './types.ts';

export type RepairArgumentsResult =
  | { ok: true; arguments: JsonObject; repairs: RepairKind[] }
  | { ok: false; message: string; position: number };

export interface RepairArgumentsOptions {
  /** The model hit its token limit: an arguments string left open is cut, not repairable. */
  truncated?: boolean;
}

/** Some servers double-encode; more than this many layers is not arguments any more. */
const MAX_DECODE_LAYERS = 2;

const FENCE_RE = /^```[\w-]*[ \t]*\n?([\s\S]*?)\n?[ \t]*```$/;

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/**
 * Reads a native tool call's `arguments` string (as providers send it in
 * `tool_calls[].function.arguments`). Empty means no arguments; a JSON string
 * holding JSON (double encoding) is decoded; the result must be an object.
 */
export function repairArguments(raw: string, options: RepairArgumentsOptions = {}): RepairArgumentsResult {
  const repairs = new Set<RepairKind>();
  let text = raw.trim();
  if (text === '') return { ok: true, arguments: {}, repairs: [] };
  const fenced = FENCE_RE.exec(text);
  if (fenced !== null) {
    text = (fenced[1] ?? '').trim();
    repairs.add('unwrapped_fence');
    if (text === '') return { ok: true, arguments: {}, repairs: [...repairs] };
  }
  const first = readJson(text, { allowCloseAtEnd: options.truncated !== true });
  if (!first.ok) {
    const cut = first.atEnd ? ' The arguments end before the JSON is complete (the reply was cut off).' : '';
    return { ok: false, message: `Invalid JSON in tool arguments: ${first.message}.${cut}`, position: first.position };
  }
  for (const kind of first.repairs) repairs.add(kind);
  let value = first.value;
  for (let layer = 0; layer < MAX_DECODE_LAYERS && typeof value === 'string'; layer += 1) {
    const inner = readJson(value, { allowCloseAtEnd: false });
    if (!inner.ok) break;
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
  return { ok: true, arguments: value, repairs: [...repairs] };
}
