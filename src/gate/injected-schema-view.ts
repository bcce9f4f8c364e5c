import type { JsonSchema } from '../core/json.ts';

/**
 * The input schema as the model sees it: injected arguments are removed from
 * `properties` and `required` (also inside top-level `allOf`/`anyOf`/`oneOf`
 * object members, where zod intersections and unions put them), so the model
 * is never asked for — or tempted to guess — a value the server supplies.
 * Returns a new schema; `$defs` and everything else are kept as they are.
 */
export function injectedSchemaView(schema: JsonSchema, injectKeys: string[]): JsonSchema {
  if (injectKeys.length === 0) return { ...schema };
  const keys = new Set(injectKeys);
  const out = withoutKeys(schema, keys);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const members = out[keyword];
    if (Array.isArray(members))
      out[keyword] = members.map((member: unknown) => (isObject(member) ? withoutKeys(member, keys) : member));
  }
  return out;
}

function withoutKeys(schema: JsonSchema, keys: ReadonlySet<string>): JsonSchema {
  const out: JsonSchema = { ...schema };
  const properties = schema['properties'];
  if (isObject(properties)) {
    out['properties'] = Object.fromEntries(Object.entries(properties).filter(([key]) => !keys.has(key)));
  }
  const required = schema['required'];
  if (Array.isArray(required))
    out['required'] = required.filter((key: unknown) => typeof key !== 'string' || !keys.has(key));
  return out;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
