import { isRecord } from './json.ts';

/**
 * Shape limits for JSON that comes from outside (a model's arguments, a
 * request body, a tool's output). Every layer that walks JSON recursively —
 * normalisation, validation, redaction, cloning — would overflow its stack on
 * input nested a few thousand levels deep, and a non-finite number (`1e400`
 * parses to Infinity) would pass a `type: number` check and then serialise as
 * `null`. One iterative check at the boundary keeps both out.
 */

/** Nesting deeper than this is refused: real tool arguments stay far below it. */
export const DEFAULT_MAX_JSON_DEPTH = 64;
/** Values (objects, arrays and scalars) in one document. */
export const DEFAULT_MAX_JSON_NODES = 100_000;

export interface JsonShapeLimits {
  /** Containers nested inside each other; the top level is depth 1. Default 64. */
  maxDepth?: number;
  /** Values in the whole document. Default 100,000. */
  maxNodes?: number;
}

export interface JsonShapeProblem {
  code: 'too_deep' | 'too_large' | 'not_finite';
  /** JSON Pointer of the offending value ('' for the root). */
  path: string;
  message: string;
}

/**
 * Finds the first shape problem of a value, or undefined when it is fine.
 * Iterative (never recursion), stops at the first problem, and never throws.
 */
export function checkJsonShape(value: unknown, limits: JsonShapeLimits = {}): JsonShapeProblem | undefined {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const maxNodes = limits.maxNodes ?? DEFAULT_MAX_JSON_NODES;
  // Paths are built only for the value at fault: each item links to its parent.
  const stack: Item[] = [{ value, depth: 0, key: '', parent: undefined }];
  let nodes = 0;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    nodes += 1;
    if (nodes > maxNodes)
      return { code: 'too_large', path: pathOf(item), message: `the value has more than ${maxNodes} elements` };
    const v = item.value;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        return {
          code: 'not_finite',
          path: pathOf(item),
          message: `${describeNumber(v)} is not a finite number (JSON numbers must fit a 64-bit float)`,
        };
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > maxDepth)
      return { code: 'too_deep', path: pathOf(item), message: `the value nests deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, key: String(i), parent: item });
    } else if (isRecord(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        if (key !== undefined) stack.push({ value: v[key], depth, key, parent: item });
      }
    }
  }
  return undefined;
}

interface Item {
  value: unknown;
  depth: number;
  key: string;
  parent: Item | undefined;
}

function pathOf(item: Item): string {
  const keys: string[] = [];
  for (let at: Item | undefined = item; at?.parent !== undefined; at = at.parent) keys.push(escapePointer(at.key));
  return keys.length === 0 ? '' : `/${keys.reverse().join('/')}`;
}

function describeNumber(n: number): string {
  return Number.isNaN(n) ? 'NaN' : n > 0 ? 'a number too large (Infinity)' : 'a number too small (-Infinity)';
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
