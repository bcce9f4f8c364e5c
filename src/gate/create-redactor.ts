import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { DEFAULT_MAX_JSON_DEPTH } from '../core/json-shape.ts';
import { setJsonKey } from '../core/set-json-key.ts';

/**
 * Keys whose values never reach logs or events. `token` also hides counters
 * such as `max_tokens`: over-hiding a number is cheaper than leaking a credential.
 */
export const DEFAULT_REDACT_PATTERNS: readonly string[] = [
  'password',
  'passwd',
  'token',
  'secret',
  'apiKey',
  'authorization',
  'cookie',
  'privateKey',
  'credential',
];

export const REDACTED = '[redacted]';
/** What stands for a container nested past DEFAULT_MAX_REDACT_DEPTH. */
export const TOO_DEEP = '[too deep]';
/**
 * Containers deeper than this (the value itself is level 1) are replaced by
 * TOO_DEEP: the copy recurses, and no value that passed validation nests deeper.
 */
export const DEFAULT_MAX_REDACT_DEPTH = DEFAULT_MAX_JSON_DEPTH;

const HEADER_NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * A function that deep-copies a JSON value, replacing the value of every key
 * that matches a pattern with "[redacted]", at any depth. Keys and patterns
 * are compared case-insensitively with `-`, `_`, `.` and spaces ignored, so
 * `apiKey` matches `api_key`, `X-API-Key` and `APIKEY`. A pattern without `*`
 * matches anywhere in the key (`token` → `accessToken`); with `*` it must match
 * the whole key (`x*id` → `xRequestId`). Header lists in `{name, value}` form
 * (HAR, fetch-like) are covered too: the `value` of a matching `name` is hidden.
 * A container nested deeper than DEFAULT_MAX_REDACT_DEPTH becomes "[too deep]".
 */
export function createRedactor(patterns: readonly string[] = DEFAULT_REDACT_PATTERNS): (value: JsonValue) => JsonValue {
  const matchers = patterns
    .map(fold)
    .filter((p) => p !== '')
    .map(toMatcher);
  const sensitive = (key: string): boolean => {
    const folded = fold(key);
    return matchers.some((match) => match(folded));
  };
  const redact = (value: JsonValue, depth: number): JsonValue => {
    if (value === null || typeof value !== 'object') return value;
    if (depth > DEFAULT_MAX_REDACT_DEPTH) return TOO_DEEP;
    if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
    const out: JsonObject = {};
    const name = value['name'];
    // Only identifier-like names: `{name: "Secret Santa", value: 3}` is data, not a header.
    const headerName = typeof name === 'string' && HEADER_NAME.test(name) ? name : undefined;
    const hideValue = headerName !== undefined && Object.hasOwn(value, 'value') && sensitive(headerName);
    for (const [key, item] of Object.entries(value)) {
      setJsonKey(out, key, sensitive(key) || (hideValue && key === 'value') ? REDACTED : redact(item, depth + 1));
    }
    return out;
  };
  return (value) => redact(value, 1);
}

function fold(text: string): string {
  return text.toLowerCase().replace(/[-_.\s]/g, '');
}

function toMatcher(pattern: string): (key: string) => boolean {
  if (!pattern.includes('*')) return (key) => key.includes(pattern);
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (key) => regex.test(key);
}

/**
 * Arguments redacted: a redactor keeps an object an object (anything else would be a bug, recorded as nothing rather
 * than leaked).
 */
export function redactArguments(args: JsonObject, redact: (value: JsonValue) => JsonValue): JsonObject {
  const out = redact(args);
  return isJsonObject(out) ? out : {};
}
