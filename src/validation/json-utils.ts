import type { JsonObject, JsonValue } from '../core/json.ts';
import { setJsonKey } from '../core/set-json-key.ts';

/** A container still to fill: its source and its fresh copy, of the same kind. */
type Pending = { from: JsonObject; to: JsonObject } | { from: JsonValue[]; to: JsonValue[] };

/** A fresh, empty container of `value`'s kind (queued to be filled), or the scalar itself. */
function shell(value: JsonValue, pending: Pending[]): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const to = new Array<JsonValue>(value.length);
    pending.push({ from: value, to });
    return to;
  }
  const to: JsonObject = {};
  pending.push({ from: value, to });
  return to;
}

/** Fills every queued container, queueing the containers found inside. */
function fill(pending: Pending[]): void {
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (Array.isArray(next.from) && Array.isArray(next.to)) {
      for (let i = 0; i < next.from.length; i += 1) {
        const item = next.from[i];
        if (item !== undefined) next.to[i] = shell(item, pending);
      }
    } else if (!Array.isArray(next.from) && !Array.isArray(next.to)) {
      for (const [key, item] of Object.entries(next.from)) setJsonKey(next.to, key, shell(item, pending));
    }
  }
}

/**
 * A deep copy of a JSON value (objects and arrays are fresh; no shared
 * structure). Iterative: a value nested deeper than the stack is copied too.
 */
export function cloneJson(value: JsonObject): JsonObject;
export function cloneJson(value: JsonValue): JsonValue;
export function cloneJson(value: JsonValue): JsonValue {
  const pending: Pending[] = [];
  const root = shell(value, pending);
  fill(pending);
  return root;
}
