/** `T` without the keys whose value is undefined: what exact optional properties accept. */
export type WithoutUndefined<T> = { [K in keyof T]?: NonNullable<T[K]> | (T[K] & null) };

/**
 * A shallow copy without the keys set to undefined: parsed config (zod's
 * `optional()` types keys as `T | undefined`) handed to options that are exact.
 */
export function withoutUndefined<T extends object>(value: T): WithoutUndefined<T> {
  const out: WithoutUndefined<T> = {};
  for (const key in value) {
    const item = value[key];
    if (item !== undefined) out[key] = item;
  }
  return out;
}
