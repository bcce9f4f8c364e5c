import { isJsonObject, type JsonObject, type JsonSchema, type JsonValue } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import { parseJson } from '../core/parse-json.ts';
import { appendPointer } from './json-pointer.ts';
import { jsonEqual } from '../core/json-equal.ts';
import { setJsonKey } from '../core/set-json-key.ts';
import { cloneJson } from './json-utils.ts';
import { parseLooseInteger, parseLooseNumber } from './parse-loose-number.ts';
import {
  allowedTypes,
  itemSchema,
  objectView,
  ownValue,
  propertySchema,
  resolveSchema,
  typeAccepts,
  type JsonType,
} from './schema-view.ts';

export type NormalisationRule =
  | 'number_from_string'
  | 'string_from_number'
  | 'enum_case'
  | 'drop_null_optional'
  | 'json_from_string'
  | 'boolean_from_string'
  | 'integer_from_string';

/** One change made to the model's arguments; `to` is undefined when the property was dropped. */
export interface Normalisation {
  path: string;
  from: JsonValue;
  to: JsonValue | undefined;
  rule: NormalisationRule;
}

export interface NormalizeResult {
  arguments: JsonObject;
  changes: Normalisation[];
}

/** Deeper than this, values are copied as they are. */
export const DEFAULT_MAX_NORMALIZE_DEPTH = 64;

const NONE: ReadonlySet<string> = new Set();

interface Context {
  root: JsonSchema;
  changes: Normalisation[];
}

/**
 * Where a value stands: its path and depth, and the `required` names of
 * enclosing schemas that apply to this same value (a union branch does not
 * repeat its parent's `required`).
 */
interface At {
  context: Context;
  path: string;
  depth: number;
  inherited: ReadonlySet<string>;
}

/**
 * Repairs the small, unambiguous mistakes models make in tool arguments, guided
 * by the tool's schema only: "7,000" where a number is wanted, 42 where a string
 * is wanted, "buy" for the enum value "BUY", `null` for an optional property,
 * '{"a":1}' where an object is wanted, "true" where a boolean is wanted.
 *
 * A value is touched only where its JSON type (or enum membership) already
 * fails the schema, so a value that validates is never changed and running it
 * twice changes nothing more. Nothing is invented: no defaults, no guessed
 * units, no ambiguous numbers (see parseLooseNumber), never a number out of
 * range. Arguments past the shape limits (checkJsonShape) are copied as they
 * are: the validator refuses them. Returns a new object.
 */
export function normalizeArguments(schema: JsonSchema, args: JsonObject): NormalizeResult {
  if (checkJsonShape(args) !== undefined) return { arguments: cloneJson(args), changes: [] };
  const context: Context = { root: schema, changes: [] };
  const result = normalizeNode(args, schema, { context, path: '', depth: 0, inherited: NONE });
  return { arguments: isJsonObject(result) ? result : cloneJson(args), changes: context.changes };
}

function normalizeNode(value: JsonValue, node: unknown, at: At): JsonValue {
  const { context, path, depth } = at;
  const schema = resolveSchema(node, context.root);
  if (typeof schema !== 'object' || depth > DEFAULT_MAX_NORMALIZE_DEPTH) return cloneJson(value);
  const types = allowedTypes(schema, context.root);
  if (!typeAccepts(types, value)) {
    const coerced = coerce(value, types);
    if (coerced === undefined) return cloneJson(value);
    context.changes.push({ path, from: value, to: coerced.value, rule: coerced.rule });
    return normalizeNode(coerced.value, schema, { context, path, depth: depth + 1, inherited: NONE });
  }
  let current: JsonValue = value;
  if (typeof current === 'string') {
    const canonical = enumMatch(current, schema, context.root);
    if (canonical !== undefined) {
      context.changes.push({ path, from: current, to: canonical, rule: 'enum_case' });
      current = canonical;
    }
  } else if (Array.isArray(current)) {
    current = current.map((item, i) =>
      normalizeNode(item, itemSchema(schema, context.root, i), {
        context,
        path: appendPointer(path, i),
        depth: depth + 1,
        inherited: NONE,
      }),
    );
  } else if (isJsonObject(current)) {
    current = normalizeObject(current, schema, at);
  }
  const required = isJsonObject(current)
    ? new Set([...at.inherited, ...objectView(schema, context.root).required])
    : NONE;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branch = singleBranch(current, ownValue(schema, keyword), context.root);
    if (branch !== undefined)
      current = normalizeNode(current, branch, { context, path, depth: depth + 1, inherited: required });
  }
  return current;
}

function normalizeObject(value: JsonObject, schema: JsonSchema, at: At): JsonObject {
  const { context, path, depth, inherited } = at;
  const view = objectView(schema, context.root);
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const sub = propertySchema(view, key);
    const itemPath = appendPointer(path, key);
    if (sub === undefined) {
      setJsonKey(out, key, cloneJson(item));
      continue;
    }
    // Models send `null` for "not given"; for an optional property that rejects null, leaving it out says the same.
    if (
      item === null &&
      !view.required.has(key) &&
      !inherited.has(key) &&
      !typeAccepts(allowedTypes(sub, context.root), null)
    ) {
      context.changes.push({ path: itemPath, from: null, to: undefined, rule: 'drop_null_optional' });
      continue;
    }
    setJsonKey(out, key, normalizeNode(item, sub, { context, path: itemPath, depth: depth + 1, inherited: NONE }));
  }
  return out;
}

interface Coercion {
  value: JsonValue;
  rule: NormalisationRule;
}

/** The one coercion the schema asks for, or undefined when there is none or more than one. */
function coerce(value: JsonValue, types: ReadonlySet<JsonType> | undefined): Coercion | undefined {
  if (types === undefined) return undefined;
  const options: Coercion[] = [];
  if (typeof value === 'string') {
    const text = value.trim();
    if (types.has('boolean') && /^(true|false)$/i.test(text))
      options.push({ value: text.toLowerCase() === 'true', rule: 'boolean_from_string' });
    if (types.has('number')) {
      const number = parseLooseNumber(text);
      if (number !== undefined) options.push({ value: number, rule: 'number_from_string' });
    } else if (types.has('integer')) {
      const integer = parseLooseInteger(text);
      if (integer !== undefined) options.push({ value: integer, rule: 'integer_from_string' });
    }
    if ((types.has('object') && text.startsWith('{')) || (types.has('array') && text.startsWith('['))) {
      const parsed = readJsonText(text);
      if ((types.has('object') && isJsonObject(parsed)) || (types.has('array') && Array.isArray(parsed))) {
        options.push({ value: parsed, rule: 'json_from_string' });
      }
    }
  } else if (typeof value === 'number' && types.has('string')) {
    options.push({ value: String(value), rule: 'string_from_number' });
  }
  return options.length === 1 ? options[0] : undefined;
}

/** Stringified JSON within the shape limits, or undefined: 1e400 must not become Infinity. */
function readJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    return undefined;
  }
  return checkJsonShape(value) === undefined ? value : undefined;
}

/**
 * The canonical enum (or const) string a near-miss stands for: "buy" → "BUY",
 * " SELL " → "SELL". Only when exactly one candidate matches.
 */
function enumMatch(value: string, schema: JsonSchema, root: JsonSchema): string | undefined {
  const allowed = enumValues(schema, root);
  if (allowed === undefined || allowed.includes(value)) return undefined;
  const strings = allowed.filter((v): v is string => typeof v === 'string');
  const trimmed = value.trim();
  const exact = strings.filter((v) => v === trimmed);
  if (exact.length === 1) return exact[0];
  const folded = trimmed.toLowerCase();
  const loose = strings.filter((v) => v.trim().toLowerCase() === folded);
  return loose.length === 1 ? loose[0] : undefined;
}

function enumValues(schema: JsonSchema, root: JsonSchema): unknown[] | undefined {
  const own = ownValue(schema, 'enum');
  if (Array.isArray(own)) return own;
  if (Object.hasOwn(schema, 'const')) return [schema['const']];
  const allOf = ownValue(schema, 'allOf');
  if (!Array.isArray(allOf)) return undefined;
  for (const member of allOf) {
    const resolved = resolveSchema(member, root);
    if (typeof resolved === 'object') {
      const found = enumValues(resolved, root);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The one anyOf/oneOf branch a value can belong to by its JSON type (and, for
 * objects, by const/enum discriminator properties). Undefined when zero or
 * several remain: guessing between shapes is how values get corrupted.
 */
function singleBranch(value: JsonValue, branches: unknown, root: JsonSchema): unknown {
  if (!Array.isArray(branches) || branches.length === 0) return undefined;
  let candidates = branches.filter((branch) => typeAccepts(allowedTypes(branch, root), value));
  if (candidates.length > 1 && isJsonObject(value))
    candidates = candidates.filter((branch) => discriminatorsMatch(value, branch, root));
  return candidates.length === 1 ? candidates[0] : undefined;
}

function discriminatorsMatch(value: JsonObject, branch: unknown, root: JsonSchema): boolean {
  for (const [key, sub] of objectView(branch, root).properties) {
    if (!Object.hasOwn(value, key)) continue;
    const resolved = resolveSchema(sub, root);
    if (typeof resolved !== 'object') continue;
    const allowed = ownValue(resolved, 'enum');
    if (Object.hasOwn(resolved, 'const') && !jsonEqual(resolved['const'], value[key])) return false;
    if (Array.isArray(allowed) && !allowed.some((v) => jsonEqual(v, value[key]))) return false;
  }
  return true;
}
