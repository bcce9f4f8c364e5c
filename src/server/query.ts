import { ToolgateError } from '../core/errors.ts';
import { isOneOf } from '../core/is-one-of.ts';

/**
 * The query string as a plain record. Unknown and repeated parameters are
 * refused: `?statuss=running` must not quietly list every run.
 */
export function readQuery<K extends string>(url: URL, allowed: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const [name, value] of url.searchParams) {
    if (!isOneOf(allowed, name)) {
      const hint = allowed.length === 0 ? 'this endpoint takes none' : `allowed: ${allowed.join(', ')}`;
      throw new ToolgateError('usage', `unknown query parameter "${name}" (${hint})`);
    }
    if (out[name] !== undefined) throw new ToolgateError('usage', `query parameter "${name}" is given more than once`);
    out[name] = value;
  }
  return out;
}

const NON_NEGATIVE_INT = /^(0|[1-9][0-9]{0,14})$/;

/** An event id or a count as it appears in a header or a query: digits only. */
export function parseNonNegativeInt(name: string, value: string): number {
  if (!NON_NEGATIVE_INT.test(value.trim())) {
    throw new ToolgateError('usage', `${name} must be a non-negative integer (an event id such as 42), got "${value}"`);
  }
  return Number(value.trim());
}

export function parseBooleanParam(name: string, value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ToolgateError('usage', `${name} must be "true" or "false", got "${value}"`);
}
