import type { JsonValue } from '../core/index.ts';

/**
 * JSON text with every object's keys sorted (by UTF-16 code units, as
 * Array.prototype.sort does), arrays in their order and no whitespace: two
 * definitions that differ only in key order give one text, hence one fingerprint.
 * Properties whose value is undefined are left out, as JSON.stringify does.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const keys = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
}
