import type { JsonSchema, JsonValue } from '../core/json.ts';
import { PerSchema } from '../core/per-schema.ts';
import { pointerSegments } from './json-pointer.ts';

/**
 * Read-only helpers that look at a JSON Schema the way normalisation and the
 * model-facing formatter need: follow local `$ref`s, ask which JSON types a
 * schema admits, find the schema of a property or an array item. They are
 * deliberately conservative — when in doubt they answer "anything", so that
 * nothing is coerced on a guess.
 */

/** A subschema: an object, a boolean schema, or absent. */
export type SchemaNode = JsonSchema | boolean | undefined;

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** Guards against `$ref` cycles and absurdly deep schemas. */
export const DEFAULT_MAX_SCHEMA_DEPTH = 32;

const KNOWN_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

export function isSchemaObject(node: unknown): node is JsonSchema {
  return typeof node === 'object' && node !== null && !Array.isArray(node);
}

export function ownValue(obj: unknown, key: string): unknown {
  return isSchemaObject(obj) && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Looks up a local JSON pointer (`#/$defs/A`, `#/definitions/A`) in the root schema. */
export function lookupPointer(root: JsonSchema, ref: string): unknown {
  let node: unknown = root;
  for (const segment of pointerSegments(ref)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else node = ownValue(node, segment);
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * Follows local `$ref`s. Sibling keywords next to a `$ref` (allowed since
 * 2019-09) are kept on top of the target. An unresolvable or remote ref is
 * dropped: the node then constrains less, which only makes callers more careful.
 */
export function resolveSchema(node: unknown, root: JsonSchema): SchemaNode {
  let current: unknown = node;
  for (let depth = 0; depth < DEFAULT_MAX_SCHEMA_DEPTH; depth += 1) {
    if (typeof current === 'boolean') return current;
    if (!isSchemaObject(current)) return undefined;
    const ref = ownValue(current, '$ref');
    if (typeof ref !== 'string') return current;
    const { $ref: _ref, ...siblings } = current;
    const target = ref.startsWith('#') ? lookupPointer(root, ref) : undefined;
    if (target === false) return false;
    current = isSchemaObject(target) ? { ...target, ...withoutAnnotations(siblings) } : siblings;
  }
  return undefined;
}

function withoutAnnotations(schema: JsonSchema): JsonSchema {
  const { description: _d, title: _t, $comment: _c, ...rest } = schema;
  return rest;
}

export function jsonTypeOf(value: unknown): Exclude<JsonType, 'integer'> {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'object';
  }
}

/**
 * The JSON types a schema can possibly accept, or undefined for "any".
 * A necessary condition only: a value whose type is not in the set cannot be
 * valid; a value whose type is in it may still be invalid.
 */
export function allowedTypes(node: unknown, root: JsonSchema, depth = 0): ReadonlySet<JsonType> | undefined {
  if (depth === 0 && typeof node === 'object' && node !== null)
    return typeSets.get(node, root, () => makeAllowedTypes(node, root, 0));
  return makeAllowedTypes(node, root, depth);
}

function makeAllowedTypes(node: unknown, root: JsonSchema, depth: number): ReadonlySet<JsonType> | undefined {
  if (depth > DEFAULT_MAX_SCHEMA_DEPTH) return undefined;
  const schema = resolveSchema(node, root);
  if (schema === undefined || schema === true) return undefined;
  if (schema === false) return new Set();
  let result: ReadonlySet<JsonType> | undefined = ownTypes(schema);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = ownValue(schema, keyword);
    if (!Array.isArray(branches) || branches.length === 0) continue;
    let union: Set<JsonType> | undefined = new Set();
    for (const branch of branches) {
      const types = allowedTypes(branch, root, depth + 1);
      if (types === undefined) {
        union = undefined;
        break;
      }
      for (const t of types) union.add(t);
    }
    result = intersectTypes(result, union);
  }
  const allOf = ownValue(schema, 'allOf');
  if (Array.isArray(allOf)) {
    for (const member of allOf) result = intersectTypes(result, allowedTypes(member, root, depth + 1));
  }
  return result;
}

function ownTypes(schema: JsonSchema): Set<JsonType> | undefined {
  const type = ownValue(schema, 'type');
  if (typeof type === 'string' || Array.isArray(type)) {
    const names = (Array.isArray(type) ? type : [type]).filter(
      (t): t is JsonType => typeof t === 'string' && KNOWN_TYPES.has(t),
    );
    const set = new Set<JsonType>(names);
    // OpenAPI's `nullable`, which ajv honours too.
    if (ownValue(schema, 'nullable') === true) set.add('null');
    return set;
  }
  const enumValues = ownValue(schema, 'enum');
  if (Array.isArray(enumValues)) return new Set(enumValues.map((v: unknown) => jsonTypeOf(v)));
  if (Object.hasOwn(schema, 'const')) return new Set([jsonTypeOf(schema['const'])]);
  return undefined;
}

function intersectTypes(
  a: ReadonlySet<JsonType> | undefined,
  b: ReadonlySet<JsonType> | undefined,
): ReadonlySet<JsonType> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out = new Set<JsonType>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if (t === 'number' && b.has('integer')) out.add('integer');
    else if (t === 'integer' && b.has('number')) out.add('integer');
  }
  return out;
}

/** Whether a value's JSON type is among `types` (undefined = any type). */
export function typeAccepts(types: ReadonlySet<JsonType> | undefined, value: JsonValue): boolean {
  if (types === undefined) return true;
  const type = jsonTypeOf(value);
  if (types.has(type)) return true;
  return type === 'number' && types.has('integer') && Number.isInteger(value);
}

/** The object-shaped keywords of a schema, merged over its `allOf` members. Shared: read it, never change it. */
export interface ObjectView {
  readonly properties: ReadonlyMap<string, unknown>;
  readonly required: ReadonlySet<string>;
  readonly patternProperties: readonly (readonly [RegExp, unknown])[];
  readonly additionalProperties: unknown;
}

/** Views and type sets already made, per schema object and root (see PerSchema). */
const views = new PerSchema<ObjectView>();
const typeSets = new PerSchema<ReadonlySet<JsonType> | undefined>();

export function objectView(node: unknown, root: JsonSchema, depth = 0): ObjectView {
  if (depth === 0 && typeof node === 'object' && node !== null)
    return views.get(node, root, () => makeObjectView(node, root, 0));
  return makeObjectView(node, root, depth);
}

function makeObjectView(node: unknown, root: JsonSchema, depth: number): ObjectView {
  const view: {
    properties: Map<string, unknown>;
    required: Set<string>;
    patternProperties: [RegExp, unknown][];
    additionalProperties: unknown;
  } = {
    properties: new Map(),
    required: new Set(),
    patternProperties: [],
    additionalProperties: undefined,
  };
  const schema = resolveSchema(node, root);
  if (!isSchemaObject(schema) || depth > DEFAULT_MAX_SCHEMA_DEPTH) return view;
  const properties = ownValue(schema, 'properties');
  if (isSchemaObject(properties)) {
    for (const [key, sub] of Object.entries(properties)) view.properties.set(key, sub);
  }
  const required = ownValue(schema, 'required');
  if (Array.isArray(required)) for (const key of required) if (typeof key === 'string') view.required.add(key);
  const patterns = ownValue(schema, 'patternProperties');
  if (isSchemaObject(patterns)) {
    for (const [source, sub] of Object.entries(patterns)) {
      const regex = safeRegExp(source);
      if (regex) view.patternProperties.push([regex, sub]);
    }
  }
  view.additionalProperties = ownValue(schema, 'additionalProperties');
  const allOf = ownValue(schema, 'allOf');
  if (Array.isArray(allOf)) {
    for (const member of allOf) {
      const inner = objectView(member, root, depth + 1);
      for (const [key, sub] of inner.properties) if (!view.properties.has(key)) view.properties.set(key, sub);
      for (const key of inner.required) view.required.add(key);
      for (const [regex, sub] of inner.patternProperties) view.patternProperties.push([regex, sub]);
    }
  }
  return view;
}

/** The schema that governs property `key`, or undefined when nothing does. */
export function propertySchema(view: ObjectView, key: string): unknown {
  if (view.properties.has(key)) return view.properties.get(key);
  for (const [regex, sub] of view.patternProperties) if (regex.test(key)) return sub;
  return isSchemaObject(view.additionalProperties) ? view.additionalProperties : undefined;
}

/** The schema of array item `index`: `prefixItems` (2020-12) or tuple `items` (draft-07) first. */
export function itemSchema(node: unknown, root: JsonSchema, index: number): unknown {
  const schema = resolveSchema(node, root);
  if (!isSchemaObject(schema)) return undefined;
  const prefix = ownValue(schema, 'prefixItems');
  const items = ownValue(schema, 'items');
  if (Array.isArray(prefix)) return index < prefix.length ? prefix[index] : items;
  if (Array.isArray(items)) return index < items.length ? items[index] : ownValue(schema, 'additionalItems');
  return items;
}

export function safeRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'u');
  } catch {
    try {
      return new RegExp(source);
    } catch {
      return undefined;
    }
  }
}
