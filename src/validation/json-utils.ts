import type { JsonObject, JsonValue } from '../core/json.ts';

/**
 * Sets an own property even for the key "__proto__", which a model can send
 * and which plain assignment would turn into a prototype change.
 */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A deep copy of a JSON value (objects and arrays are fresh; no shared
 * structure). Iterative: a value nested deeper than the stack is copied too.
 */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const root = emptyLike(value);
  const stack: { from: JsonObject | JsonValue[]; to: JsonObject | JsonValue[] }[] = [{ from: value, to: root }];
  while (stack.length > 0) {
    const { from, to } = stack.pop() as { from: JsonObject | JsonValue[]; to: JsonObject | JsonValue[] };
    const entries: [string | number, JsonValue][] = Array.isArray(from) ? from.map((item, i) => [i, item]) : Object.entries(from);
    for (const [key, item] of entries) {
      const copy = item === null || typeof item !== 'object' ? item : emptyLike(item);
      if (Array.isArray(to)) to[key as number] = copy;
      else setOwn(to, key as string, copy);
      if (copy !== item) stack.push({ from: item as JsonObject | JsonValue[], to: copy as JsonObject | JsonValue[] });
    }
  }
  return root as T;
}

function emptyLike(value: JsonObject | JsonValue[]): JsonObject | JsonValue[] {
  return Array.isArray(value) ? new Array<JsonValue>(value.length) : {};
}

/** Structural equality of JSON values (key order ignored). Iterative, like cloneJson. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i += 1) stack.push([x[i], y[i]]);
      continue;
    }
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}
