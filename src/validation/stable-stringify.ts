/**
 * JSON with object keys sorted, so that two equal schemas sent as different
 * objects (every tools/list returns fresh ones) share one compiled validator.
 * Throws on cycles, which a schema that came over the wire cannot have.
 */
export function stableStringify(value: unknown): string {
  return walk(value, []);
}

/** `open`: the objects being written around this one, to find a cycle. */
function walk(node: unknown, open: object[]): string {
  if (node === null || typeof node !== 'object') {
    const text = JSON.stringify(node);
    return text === undefined ? 'null' : text;
  }
  if (open.includes(node)) throw new TypeError('the schema contains a cycle');
  open.push(node);
  let out: string;
  if (Array.isArray(node)) {
    out = '[';
    for (let i = 0; i < node.length; i += 1) out += (i === 0 ? '' : ',') + walk(node[i], open);
    out += ']';
  } else {
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    out = '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${walk(item, open)}`;
      first = false;
    }
    out += '}';
  }
  open.pop();
  return out;
}
