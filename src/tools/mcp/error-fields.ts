/*
 * Thrown values are read field by field: Node's system errors carry `code`,
 * `address` and `port`, undici's a `cause`, the MCP SDK's `data`; nothing
 * guarantees any of them, or that the value is an Error at all.
 */

/** A property of a thrown value, or undefined when it is not an object or lacks it. */
export function errorField(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? Reflect.get(error, key) : undefined;
}

/** The value and its causes, outermost first, at most `depth` of them. */
export function* errorChain(error: unknown, depth = 6): Generator<unknown> {
  let e: unknown = error;
  for (let level = 0; e !== undefined && e !== null && level < depth; level++) {
    yield e;
    e = errorField(e, 'cause');
  }
}

/** The `code` of the value or of one of its causes, outermost first. */
export function errorCodes(error: unknown, depth?: number): Set<string> {
  const codes = new Set<string>();
  for (const e of errorChain(error, depth)) {
    const code = errorField(e, 'code');
    if (typeof code === 'string') codes.add(code);
  }
  return codes;
}
