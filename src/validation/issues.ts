import { isOneOf } from '../core/is-one-of.ts';
import type { JsonValue } from '../core/json.ts';

/**
 * The closed set of validation issue codes. They are a public contract (tool
 * results, events and the debug console show them): add codes, never rename.
 */
export const ISSUE_CODES = [
  'required',
  'type',
  'enum',
  'const',
  'format',
  'minimum',
  'maximum',
  'min_length',
  'max_length',
  'pattern',
  'additional_property',
  'min_items',
  'max_items',
  'unique_items',
  'one_of',
  'any_of',
  'not',
  'invalid_schema',
  'other',
  // The value's shape, checked before the schema (see checkJsonShape in core).
  'too_deep',
  'too_large',
  'not_finite',
  // The arguments could not be read as a JSON object at all (even after repair).
  'not_json',
] as const;

export type IssueCode = (typeof ISSUE_CODES)[number];

/** One thing wrong with a tool call's arguments. */
export interface ValidationIssue {
  code: IssueCode;
  /** JSON pointer into the arguments: '' for the root, '/qty', '/items/0/name'. */
  path: string;
  /** A plain sentence, without the path (formatters add it). */
  message: string;
  /** What the schema wants, in words: "number", 'one of "BUY", "SELL"', "> 0". */
  expected?: string;
  /** What the model sent at `path` (absent for a missing property). */
  received?: JsonValue;
}

export type ValidationResult = { ok: true } | { ok: false; issues: ValidationIssue[] };

export function isIssueCode(value: unknown): value is IssueCode {
  return isOneOf(ISSUE_CODES, value);
}
