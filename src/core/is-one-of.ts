/**
 * Whether `value` is one of a closed list of names (`STRATEGY_NAMES`,
 * `RUN_STATUSES`…): narrows a string read from outside (a flag, a query
 * parameter, a file) to the list's union.
 */
export function isOneOf<const T extends string>(list: readonly T[], value: unknown): value is T {
  return list.some((item) => item === value);
}
