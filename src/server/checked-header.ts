import type { IncomingHttpHeaders } from 'node:http';
import { ToolgateError } from '../core/errors.ts';

/**
 * A request header's value (a repeated header's values joined with commas),
 * or undefined when it is absent; a value that does not match `pattern` is
 * refused as `usage` with `problem`.
 */
export function checkedHeader(
  headers: IncomingHttpHeaders,
  rule: { name: string; pattern: RegExp; problem: string },
): string | undefined {
  const raw = headers[rule.name];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  if (!rule.pattern.test(value)) throw new ToolgateError('usage', rule.problem);
  return value;
}
