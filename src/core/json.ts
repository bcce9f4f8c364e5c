/** JSON values as they cross the wire and the store. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * A JSON Schema document (draft-07 or 2020-12, as MCP servers send them).
 * Kept structural on purpose: validation lives in src/validation/, not in types.
 */
export type JsonSchema = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A plain object (not null, not an array) whose members are not known to be
 * JSON: a JavaScript value on its way to JSON, a parsed document not yet
 * checked. Its members read as `unknown`.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
