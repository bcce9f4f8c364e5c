import { canonicalJson, isJsonObject, type JsonValue, type ReplayCall } from '../../core/index.ts';

/** A value in a diff line is cut after this many characters. */
const MAX_VALUE_CHARS = 120;

/**
 * One line per argument path whose value differs (`arguments.qty: "7,000" → 7000`), after normalisation. A key that is
 * injected on one side and absent on the other is left to the `injected` line: a call the gate refused before it
 * injected anything is not "missing" its injected values.
 */
export function argumentChanges(before: ReplayCall, after: ReplayCall): string[] {
  if (before.arguments === undefined || after.arguments === undefined) return [];
  const injected = new Set([...(before.injected ?? []), ...(after.injected ?? [])]);
  const lines: string[] = [];
  const keys = new Set([...Object.keys(before.arguments), ...Object.keys(after.arguments)]);
  for (const key of [...keys].sort()) {
    const b = before.arguments[key];
    const a = after.arguments[key];
    if (injected.has(key) && (a === undefined || b === undefined)) continue;
    walk({ path: `arguments${memberPath(key)}`, before: b, after: a, lines });
  }
  return lines;
}

function walk(at: {
  path: string;
  before: JsonValue | undefined;
  after: JsonValue | undefined;
  lines: string[];
}): void {
  const { path, before, after, lines } = at;
  if (before !== undefined && after !== undefined && canonicalJson(before) === canonicalJson(after)) return;
  if (isJsonObject(before) && isJsonObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of [...keys].sort())
      walk({ path: `${path}${memberPath(key)}`, before: before[key], after: after[key], lines });
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => walk({ path: `${path}[${i}]`, before: item, after: after[i], lines }));
    return;
  }
  lines.push(`${path}: ${shown(before)} → ${shown(after)}`);
}

function memberPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function shown(value: JsonValue | undefined): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
