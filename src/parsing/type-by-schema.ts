import { isJsonObject, isRecord } from '../core/json.ts';
import type { JsonObject, JsonSchema, JsonValue } from '../core/json.ts';
import { checkJsonShape, DEFAULT_MAX_JSON_DEPTH } from '../core/json-shape.ts';
import { PerSchema } from '../core/per-schema.ts';
import { setJsonKey } from '../core/set-json-key.ts';
import { readJson } from './repair-json.ts';

/**
 * Small models often send an array or an object as a string holding it
 * (`"tags": "[\"a\", \"b\"]"`, `"filter": "{'k': True}"`). Where the tool's
 * schema asks for an array or an object, and does not allow a string, such a
 * string is read with the lenient reader and replaced — only when what it
 * holds is of the wanted type and within the shape limits. Nothing else is
 * touched: a value that already fits, a string the schema allows, a string
 * that does not read. Schemas are followed through `type`, `anyOf`/`oneOf`,
 * local `$ref`s, `properties`, `additionalProperties`, `items` and
 * `prefixItems`.
 */

export interface SchemaTypingChange {
  /** JSON Pointer of the value in the arguments (`/tags`, `/filter/ids`). */
  path: string;
  from: JsonValue;
  to: JsonValue;
}

export interface SchemaTypingResult {
  /** A new object; the input is never mutated. */
  arguments: JsonObject;
  changes: SchemaTypingChange[];
}

type Container = 'array' | 'object';

/** `$ref` hops followed from one schema: more is a cycle or an absurd schema. */
const MAX_REF_HOPS = 32;
/** A string is only worth reading when it starts like a container. */
const CONTAINER_START_RE = /^\s*[[{]/;

interface Walk {
  root: JsonSchema;
  changes: SchemaTypingChange[];
}

function own(node: unknown, key: string): unknown {
  return isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}

function pointerSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all: the segment as written.
  }
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
}

/**
 * The schema a local `$ref` (`#/$defs/A`, `#/definitions/A`) leads to, followed to the end; undefined when it leads
 * nowhere.
 */
function resolve(node: unknown, root: JsonSchema): unknown {
  let current = node;
  for (let hop = 0; hop < MAX_REF_HOPS; hop += 1) {
    const ref = own(current, '$ref');
    if (typeof ref !== 'string') return current;
    if (ref !== '#' && !ref.startsWith('#/')) return undefined;
    let target: unknown = root;
    for (const segment of ref === '#' ? [] : ref.slice(2).split('/')) {
      const key = pointerSegment(segment);
      target = Array.isArray(target) && /^\d+$/.test(key) ? target[Number(key)] : own(target, key);
      if (target === undefined) return undefined;
    }
    current = target;
  }
  return undefined;
}

/** The options of an `anyOf` / `oneOf`, resolved; undefined when the schema has neither. */
function optionsOf(schema: unknown, root: JsonSchema): unknown[] | undefined {
  const any = own(schema, 'anyOf');
  const one = own(schema, 'oneOf');
  const list = Array.isArray(any) ? any : Array.isArray(one) ? one : undefined;
  return list?.map((option) => resolve(option, root));
}

/** What a schema admits, as far as typing strings goes: a string at all, and which containers. */
interface Admits {
  string: boolean;
  containers: Set<Container>;
}

const ANYTHING: Admits = { string: true, containers: new Set() };

/** `nesting` bounds `anyOf` inside `anyOf` (through `$ref`s, possibly a cycle). */
function admits(schema: unknown, root: JsonSchema, nesting: number): Admits {
  if (!isJsonObject(schema) || nesting > MAX_REF_HOPS) return ANYTHING;
  const type = own(schema, 'type');
  const types: unknown[] | undefined = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (types !== undefined) {
    return {
      string: types.includes('string'),
      containers: new Set((['array', 'object'] as const).filter((t) => types.includes(t))),
    };
  }
  const options = optionsOf(schema, root);
  // No type: any JSON value, a string among them.
  if (options === undefined) return ANYTHING;
  const all: Admits = { string: false, containers: new Set() };
  for (const option of options) {
    const admitted = admits(option, root, nesting + 1);
    if (admitted.string) return ANYTHING;
    for (const container of admitted.containers) all.containers.add(container);
  }
  return all;
}

/** `wanted` per schema object and root: a tool's schema is looked at for every string of every call. */
const wantedBySchema = new PerSchema<readonly Container[]>();
const NO_CONTAINER: readonly Container[] = [];

/** The containers a (resolved) schema asks for; none when it allows a string. */
function wanted(schema: unknown, root: JsonSchema): readonly Container[] {
  if (typeof schema !== 'object' || schema === null) return containersOf(schema, root);
  return wantedBySchema.get(schema, root, () => containersOf(schema, root));
}

function containersOf(schema: unknown, root: JsonSchema): readonly Container[] {
  const admitted = admits(schema, root, 0);
  return admitted.string || admitted.containers.size === 0 ? NO_CONTAINER : [...admitted.containers];
}

function typeAllows(type: unknown, name: string): boolean {
  return type === name || (Array.isArray(type) && type.includes(name));
}

function fits(value: JsonValue, container: Container): boolean {
  return container === 'array' ? Array.isArray(value) : isJsonObject(value);
}

/** The schema to walk a container with: itself, or the one `anyOf`/`oneOf` option that can hold it. */
function schemaFor(value: JsonValue, schema: unknown, root: JsonSchema): unknown {
  const options = optionsOf(schema, root);
  if (options === undefined || own(schema, 'type') !== undefined) return schema;
  const container: Container = Array.isArray(value) ? 'array' : 'object';
  const matching = options.filter((option) => {
    const type = own(option, 'type');
    return type === undefined ? isJsonObject(option) : typeAllows(type, container);
  });
  return matching.length === 1 ? matching[0] : undefined;
}

function childSchema(parent: unknown, key: string | number): unknown {
  if (typeof key === 'number') {
    const prefix = own(parent, 'prefixItems');
    const items = own(parent, 'items');
    if (Array.isArray(prefix)) return key < prefix.length ? prefix[key] : items;
    // Draft-07 tuples: `items` as a list, then `additionalItems`.
    if (Array.isArray(items)) return key < items.length ? items[key] : own(parent, 'additionalItems');
    return items;
  }
  const properties = own(parent, 'properties');
  const property = own(properties, key);
  return property !== undefined ? property : own(parent, 'additionalProperties');
}

const POINTER_SPECIAL_RE = /[~/]/;

function escapePointer(key: string): string {
  return POINTER_SPECIAL_RE.test(key) ? key.replaceAll('~', '~0').replaceAll('/', '~1') : key;
}

/** The string read as a container the schema wants, within the limits left at `depth`; undefined otherwise. */
function readContainer(text: string, containers: readonly Container[], depth: number): JsonValue | undefined {
  if (!CONTAINER_START_RE.test(text)) return undefined;
  const maxDepth = DEFAULT_MAX_JSON_DEPTH - depth + 1;
  // No jsonrepair: it turns almost any text into something, and this must only read what is plainly there.
  const read = readJson(text, { allowCloseAtEnd: false, lastResort: false, maxDepth });
  if (!read.ok || !containers.some((container) => fits(read.value, container))) return undefined;
  return checkJsonShape(read.value, { maxDepth }) === undefined ? read.value : undefined;
}

/** Where a value stands: its JSON Pointer, its nesting level, and the walk it is part of. */
interface At {
  path: string;
  depth: number;
  walk: Walk;
}

/** `value` typed by `node`: the same value when nothing changed, else a new one. */
function visit(value: JsonValue, node: unknown, at: At): JsonValue {
  const { path, depth, walk } = at;
  if (depth > DEFAULT_MAX_JSON_DEPTH) return value;
  const schema = resolve(node, walk.root);
  if (schema === undefined || typeof schema === 'boolean') return value;
  if (typeof value === 'string') {
    const containers = wanted(schema, walk.root);
    if (containers.length === 0) return value;
    const read = readContainer(value, containers, depth);
    if (read === undefined) return value;
    const typed = visit(read, schema, at);
    walk.changes.push({ path, from: value, to: typed });
    return typed;
  }
  if (value === null || typeof value !== 'object') return value;
  const container = schemaFor(value, schema, walk.root);
  if (container === undefined) return value;
  if (Array.isArray(value)) {
    let copy: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i];
      if (item === undefined) continue;
      const typed = visit(item, childSchema(container, i), { path: `${path}/${i}`, depth: depth + 1, walk });
      if (typed !== item) (copy ??= value.slice())[i] = typed;
    }
    return copy ?? value;
  }
  let copy: JsonObject | undefined;
  for (const [key, member] of Object.entries(value)) {
    const typed = visit(member, childSchema(container, key), {
      path: `${path}/${escapePointer(key)}`,
      depth: depth + 1,
      walk,
    });
    if (typed === member) continue;
    if (copy === undefined) {
      copy = {};
      for (const [k, v] of Object.entries(value)) setJsonKey(copy, k, v);
    }
    setJsonKey(copy, key, typed);
  }
  return copy ?? value;
}

/**
 * Arguments typed by the tool's input schema: strings holding a JSON (or
 * Python) array or object where the schema wants one are read into it. Each
 * change says where (`path`, a JSON Pointer), from what and to what. Never
 * throws; returns a new object.
 */
export function typeBySchema(args: JsonObject, schema: JsonSchema): SchemaTypingResult {
  const walk: Walk = { root: schema, changes: [] };
  try {
    const typed = visit(args, schema, { path: '', depth: 1, walk });
    const result: JsonObject = {};
    if (isJsonObject(typed)) for (const [key, member] of Object.entries(typed)) setJsonKey(result, key, member);
    return { arguments: result, changes: walk.changes };
  } catch {
    // A schema built to trip the walk (getters, proxies): the arguments as they came.
    const result: JsonObject = {};
    for (const [key, member] of Object.entries(args)) setJsonKey(result, key, member);
    return { arguments: result, changes: [] };
  }
}
