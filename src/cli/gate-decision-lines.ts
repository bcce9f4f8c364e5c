import type { JsonValue, RunEventDataMap } from '../core/index.ts';
import { truncate } from './truncate.ts';

const MAX_VALUE_CHARS = 40;

/**
 * `  normalised qty "7,000" → 7000, side "buy" → "BUY"` and
 * `  injected: userId (server-side, …)`. Injected arguments are named, never
 * shown: their values are often credentials or account ids.
 */
export function gateDecisionLines(data: RunEventDataMap['gate_decision']): string[] {
  const lines: string[] = [];
  if (data.normalisations.length > 0) {
    const changes = data.normalisations.map((n) =>
      n.to === undefined
        ? `dropped ${displayPath(n.path)} (${shortValue(n.from)})`
        : `${displayPath(n.path)} ${shortValue(n.from)} → ${shortValue(n.to)}`,
    );
    lines.push(`  normalised ${changes.join(', ')}`);
  }
  if (data.injected.length > 0) {
    const keys = data.injected.map((i) => (i.overridden ? `${i.key} (replacing the model's value)` : i.key));
    lines.push(`  injected server-side: ${keys.join(', ')}`);
  }
  return lines;
}

/** A JSON Pointer as people read it: `/legs/0/qty` → `legs.0.qty`. */
function displayPath(pointer: string): string {
  if (pointer === '') return '(arguments)';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function shortValue(value: JsonValue): string {
  return truncate(JSON.stringify(value), MAX_VALUE_CHARS);
}
