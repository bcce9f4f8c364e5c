/**
 * Reads a number a model wrote as text: "7000", "7,000", "1 000.5", "7_000",
 * "1,234,567.8", "-3.5", "+2", "1e3".
 *
 * The rule for separators, chosen so that no reading is ever a guess:
 * - `.` is always the decimal point.
 * - `,`, `_`, a space (also no-break and thin spaces) and `'` group thousands,
 *   and are accepted only in a well-formed grouping: 1–3 leading digits, then
 *   groups of exactly three digits, one separator kind throughout.
 *   "7,000" → 7000, "1 000.5" → 1000.5.
 * - Anything else is left alone, because it is ambiguous or not a number:
 *   "1,5" and "1,50" (European decimal commas), "1.234,5" (European grouping),
 *   "12,34,567" (Indian grouping), "1,0000", "$7,000", "7000 MWh", "0x1F", "".
 *   The validator then reports a type error and the model writes it again.
 *
 * A comma followed by exactly three digits is read as grouping ("1,500" → 1500),
 * as the English-language trading tools this targets write it.
 * Returns undefined when the text is not a number by this rule.
 */
export function parseLooseNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (PLAIN.test(trimmed)) return finite(Number(trimmed));
  const grouped = GROUPED.exec(trimmed);
  if (grouped === null) return undefined;
  const separator = grouped[1] ?? '';
  const digits = trimmed.split(separator).join('');
  return PLAIN.test(digits) ? finite(Number(digits)) : undefined;
}

/** A number that must be integral (an `integer` schema): "7,000" → 7000, "7.5" → undefined. */
export function parseLooseInteger(text: string): number | undefined {
  const value = parseLooseNumber(text);
  return value !== undefined && Number.isSafeInteger(value) ? value : undefined;
}

const PLAIN = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
// Group separators: comma, underscore, apostrophe (Swiss), space, no-break space, thin and narrow no-break spaces.
const GROUPED = /^[+-]?\d{1,3}([,_' \u00a0\u2009\u202f])\d{3}(?:\1\d{3})*(?:\.\d+)?$/;

function finite(value: number): number | undefined {
  return Number.isFinite(value) ? value : undefined;
}
