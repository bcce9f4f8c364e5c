import type { JsonSchema } from '../core/json.ts';
import { DEFAULT_MAX_SCHEMA_DEPTH, isSchemaObject, ownValue, resolveSchema } from './schema-view.ts';

/** Longest description we produce; long enums are cut with "…". */
export const DEFAULT_DESCRIPTION_LENGTH = 160;

/**
 * A schema in a few words, for people and small models:
 * `number > 0`, `one of "BUY", "SELL"`, `string (date-time)`, `array of string`,
 * `integer or null`. Deterministic; never throws.
 */
export function describeSchema(node: unknown, root: JsonSchema, depth = 0): string {
  const text = describe(node, root, depth);
  return text.length > DEFAULT_DESCRIPTION_LENGTH ? `${text.slice(0, DEFAULT_DESCRIPTION_LENGTH - 1)}…` : text;
}

function describe(node: unknown, root: JsonSchema, depth: number): string {
  if (depth > 4 || depth > DEFAULT_MAX_SCHEMA_DEPTH) return 'value';
  const schema = resolveSchema(node, root);
  if (schema === false) return 'nothing (this field must be left out)';
  if (!isSchemaObject(schema)) return 'any value';
  const enumValues = ownValue(schema, 'enum');
  if (Array.isArray(enumValues)) return `one of ${enumValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (Object.hasOwn(schema, 'const')) return `exactly ${JSON.stringify(schema['const'])}`;
  const type = ownValue(schema, 'type');
  const types = (Array.isArray(type) ? type : typeof type === 'string' ? [type] : []).filter(
    (t): t is string => typeof t === 'string',
  );
  if (ownValue(schema, 'nullable') === true && types.length > 0 && !types.includes('null')) types.push('null');
  if (types.length > 0) {
    const parts = types.map((t) => describeType(t, schema, { root, depth }));
    return parts.join(' or ');
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = ownValue(schema, keyword);
    if (Array.isArray(branches) && branches.length > 0) {
      return [...new Set(branches.map((b) => describe(b, root, depth + 1)))].join(' or ');
    }
  }
  const allOf = ownValue(schema, 'allOf');
  if (Array.isArray(allOf) && allOf.length > 0) {
    return [...new Set(allOf.map((b) => describe(b, root, depth + 1)))].join(' and ');
  }
  if (isSchemaObject(ownValue(schema, 'properties'))) return describeObject(schema, root, depth);
  return 'any value';
}

function describeType(type: string, schema: JsonSchema, at: { root: JsonSchema; depth: number }): string {
  const { root, depth } = at;
  switch (type) {
    case 'number':
    case 'integer':
      return [type, ...numberBounds(schema)].join(' ');
    case 'string': {
      const notes: string[] = [];
      const format = ownValue(schema, 'format');
      if (typeof format === 'string') notes.push(format);
      const min = ownValue(schema, 'minLength');
      const max = ownValue(schema, 'maxLength');
      if (typeof min === 'number' && min > 0) notes.push(`at least ${min} character${min === 1 ? '' : 's'}`);
      if (typeof max === 'number') notes.push(`at most ${max} character${max === 1 ? '' : 's'}`);
      const pattern = ownValue(schema, 'pattern');
      if (typeof pattern === 'string') notes.push(`matching /${pattern}/`);
      return notes.length > 0 ? `string (${notes.join(', ')})` : 'string';
    }
    case 'object':
      return describeObject(schema, root, depth);
    case 'array': {
      const items = ownValue(schema, 'items');
      return isSchemaObject(items) ? `array of ${describe(items, root, depth + 1)}` : 'array';
    }
    default:
      return type;
  }
}

/** `object {kind: exactly "user", userId: string}`: required properties (or the first few). */
function describeObject(schema: JsonSchema, root: JsonSchema, depth: number): string {
  const properties = ownValue(schema, 'properties');
  if (!isSchemaObject(properties) || depth > 1) return 'object';
  const required = ownValue(schema, 'required');
  const names = (
    Array.isArray(required) ? required.filter((k): k is string => typeof k === 'string') : Object.keys(properties)
  ).slice(0, 6);
  if (names.length === 0) return 'object';
  return `object {${names.map((name) => `${name}: ${describe(properties[name], root, depth + 1)}`).join(', ')}}`;
}

/** Bounds as comparisons: "> 0", ">= 1", "<= 100". */
export function numberBounds(schema: JsonSchema): string[] {
  const out: string[] = [];
  const exclusiveMin = ownValue(schema, 'exclusiveMinimum');
  const exclusiveMax = ownValue(schema, 'exclusiveMaximum');
  const min = ownValue(schema, 'minimum');
  const max = ownValue(schema, 'maximum');
  if (typeof exclusiveMin === 'number') out.push(`> ${exclusiveMin}`);
  else if (typeof min === 'number') out.push(exclusiveMin === true ? `> ${min}` : `>= ${min}`);
  if (typeof exclusiveMax === 'number') out.push(`< ${exclusiveMax}`);
  else if (typeof max === 'number') out.push(exclusiveMax === true ? `< ${max}` : `<= ${max}`);
  return out;
}
