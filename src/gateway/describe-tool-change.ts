import type { JsonObject, JsonValue } from '../core/index.ts';
import { canonicalJson } from '../core/index.ts';

/** Strings and JSON values in a change line are cut to about this many characters. */
export const DEFAULT_CHANGE_TEXT_LENGTH = 200;
/** Lines per tool; the rest is counted in one last line. */
export const DEFAULT_MAX_CHANGE_LINES = 20;
/** Characters shown before the first difference when a long string is cut around it. */
const CONTEXT_BEFORE_DIFFERENCE = 60;

/** The fields of a definition in the order their lines come; unknown fields follow, sorted. */
const FIELD_ORDER = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'];
const TEXT_FIELDS = new Set(['name', 'title', 'description']);
const SCHEMA_FIELDS = new Set(['inputSchema', 'outputSchema']);

type Value = JsonValue | undefined;

/**
 * What changed between a pinned tool definition and the current one, as lines
 * an operator reads before accepting it: `description changed: "…" → "…"`,
 * `inputSchema: property "note" added: {…}`, `annotations.readOnlyHint: true → false`.
 * A long text is cut around its first difference, so an instruction appended
 * to a long description shows. Never empty when the canonical JSON differs.
 */
export function describeToolChange(pinned: JsonObject, current: JsonObject): string[] {
  const lines: string[] = [];
  for (const key of orderedKeys(pinned, current, FIELD_ORDER)) {
    const before = pinned[key];
    const after = current[key];
    if (same(before, after)) continue;
    if (TEXT_FIELDS.has(key) && isTextOrAbsent(before) && isTextOrAbsent(after))
      lines.push(textLine(key, before, after));
    else if (SCHEMA_FIELDS.has(key) && isObject(before) && isObject(after))
      lines.push(...schemaLines(key, before, after));
    else if (SCHEMA_FIELDS.has(key) && (before === undefined || after === undefined))
      lines.push(`${key} ${after === undefined ? 'removed' : `added: ${json(after)}`}`);
    else if (key === 'annotations' && isObjectOrAbsent(before) && isObjectOrAbsent(after))
      lines.push(...annotationLines(before ?? {}, after ?? {}));
    else lines.push(...leafLines(key, { before, after }));
  }
  if (lines.length === 0 && canonicalJson(pinned) !== canonicalJson(current)) lines.push('definition changed');
  if (lines.length <= DEFAULT_MAX_CHANGE_LINES) return lines;
  const more = lines.length - (DEFAULT_MAX_CHANGE_LINES - 1);
  return [...lines.slice(0, DEFAULT_MAX_CHANGE_LINES - 1), `… and ${more} more changes`];
}

function textLine(key: string, before: string | undefined, after: string | undefined): string {
  if (before === undefined) return `${key} added: ${quote(after ?? '')}`;
  if (after === undefined) return `${key} removed (was ${quote(before)})`;
  const [a, b] = cutAroundDifference(before, after);
  return `${key} changed: ${quote(a)} → ${quote(b)}`;
}

/** Properties added, removed or changed, `required`, then any other keyword of the schema. */
function schemaLines(label: string, before: JsonObject, after: JsonObject): string[] {
  const lines: string[] = [];
  for (const key of orderedKeys(before, after, ['type', 'properties', 'required'])) {
    const a = before[key];
    const b = after[key];
    if (same(a, b)) continue;
    if (key === 'properties' && isObjectOrAbsent(a) && isObjectOrAbsent(b))
      lines.push(...propertyLines(label, a ?? {}, b ?? {}));
    else if (key === 'required' && isListOrAbsent(a) && isListOrAbsent(b))
      lines.push(`${label}: "required" changed: ${list(a)} → ${list(b)}`);
    else lines.push(...leafLines(`${label}.${key}`, { before: a, after: b }));
  }
  return lines;
}

function propertyLines(label: string, before: JsonObject, after: JsonObject): string[] {
  const lines: string[] = [];
  // The current order first (as the server lists them), then the removed ones.
  const names = [...Object.keys(after), ...Object.keys(before).filter((name) => !(name in after))];
  for (const name of names) {
    const a = before[name];
    const b = after[name];
    if (same(a, b)) continue;
    const property = `${label}: property ${JSON.stringify(name)}`;
    if (a === undefined) lines.push(`${property} added: ${json(b)}`);
    else if (b === undefined) lines.push(`${property} removed`);
    else lines.push(...leafLines(property, { before: a, after: b, style: 'changed' }));
  }
  return lines;
}

function annotationLines(before: JsonObject, after: JsonObject): string[] {
  return orderedKeys(before, after, []).flatMap((key) =>
    leafLines(`annotations.${key}`, { before: before[key], after: after[key] }),
  );
}

/**
 * One line per differing leaf: `label.path: before → after`, or with
 * `changed`: `label changed: path before → after`.
 */
function leafLines(
  label: string,
  { before, after, style = 'dotted' }: { before: Value; after: Value; style?: 'dotted' | 'changed' },
): string[] {
  return leafDiffs(before, after, []).map(({ path, a, b }) => {
    const where = path.join('.');
    let values = `${json(a)} → ${json(b)}`;
    if (typeof a === 'string' && typeof b === 'string') {
      const [x, y] = cutAroundDifference(a, b);
      values = `${quote(x)} → ${quote(y)}`;
    }
    if (style === 'changed') return `${label} changed: ${where === '' ? '' : `${where} `}${values}`;
    return `${label}${where === '' ? '' : `.${where}`}: ${values}`;
  });
}

/** Where two JSON values differ: objects by key, arrays of one length by index, anything else whole. */
function leafDiffs(a: Value, b: Value, path: string[]): { path: string[]; a: Value; b: Value }[] {
  if (same(a, b)) return [];
  if (isObject(a) && isObject(b))
    return orderedKeys(a, b, []).flatMap((key) => leafDiffs(a[key], b[key], [...path, key]));
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((item, i) => leafDiffs(item, b[i], [...path, String(i)]));
  return [{ path, a, b }];
}

/**
 * Both strings cut to about DEFAULT_CHANGE_TEXT_LENGTH characters, starting
 * shortly before their first difference, with "…" where text was left out.
 */
export function cutAroundDifference(a: string, b: string): [string, string] {
  if (a.length <= DEFAULT_CHANGE_TEXT_LENGTH && b.length <= DEFAULT_CHANGE_TEXT_LENGTH) return [a, b];
  let common = 0;
  while (common < a.length && common < b.length && a.charCodeAt(common) === b.charCodeAt(common)) common += 1;
  const start = Math.max(0, common - CONTEXT_BEFORE_DIFFERENCE);
  const window = (text: string): string => {
    const part = text.slice(start, start + DEFAULT_CHANGE_TEXT_LENGTH);
    return `${start > 0 ? '…' : ''}${part}${start + DEFAULT_CHANGE_TEXT_LENGTH < text.length ? '…' : ''}`;
  };
  return [window(a), window(b)];
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** A JSON value for a line, cut; `(none)` for an absent one. */
function json(value: Value): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length <= DEFAULT_CHANGE_TEXT_LENGTH ? text : `${text.slice(0, DEFAULT_CHANGE_TEXT_LENGTH)}…`;
}

/** `[a, b]`: strings bare, other values as JSON; `(none)` for an absent list. */
function list(value: Value): string {
  if (!Array.isArray(value)) return '(none)';
  return `[${value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ')}]`;
}

function orderedKeys(a: JsonObject, b: JsonObject, first: readonly string[]): string[] {
  const all = new Set([...Object.keys(a), ...Object.keys(b)]);
  const rest = [...all].filter((key) => !first.includes(key)).sort();
  return [...first.filter((key) => all.has(key)), ...rest];
}

function same(a: Value, b: Value): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

function isObject(value: Value): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isObjectOrAbsent(value: Value): value is JsonObject | undefined {
  return value === undefined || isObject(value);
}

function isTextOrAbsent(value: Value): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

function isListOrAbsent(value: Value): value is JsonValue[] | undefined {
  return value === undefined || Array.isArray(value);
}
