/**
 * JSON with object keys sorted, so that two equal schemas sent as different
 * objects (every tools/list returns fresh ones) share one compiled validator.
 * Throws on cycles, which a schema that came over the wire cannot have.
 */
export function stableStringify(value: unknown): string {
  const stack = new Set<object>();
  const walk = (node: unknown): string => {
    if (node === null || typeof node !== 'object') {
      const text = JSON.stringify(node);
      return text === undefined ? 'null' : text;
    }
    if (stack.has(node)) throw new TypeError('the schema contains a cycle');
    stack.add(node);
    let out: string;
    if (Array.isArray(node)) {
      out = `[${node.map(walk).join(',')}]`;
    } else {
      const keys = Object.keys(node)
        .filter((k) => (node as Record<string, unknown>)[k] !== undefined)
        .sort();
      out = `{${keys.map((k) => `${JSON.stringify(k)}:${walk((node as Record<string, unknown>)[k])}`).join(',')}}`;
    }
    stack.delete(node);
    return out;
  };
  return walk(value);
}
