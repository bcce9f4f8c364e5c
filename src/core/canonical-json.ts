/**
 * JSON with object keys sorted at every depth and `undefined` members left out:
 * equal values give equal text (request hashes, validator caches, repeated-call
 * detection). Throws a TypeError on a cycle, which a value read from JSON cannot have.
 */
export function canonicalJson(value: unknown): string {
  return walk(value, []);
}

/** `open`: the objects being written around this one, to find a cycle. */
function walk(node: unknown, open: object[]): string {
  if (node === null || typeof node !== 'object') return JSON.stringify(node) ?? 'null';
  if (open.includes(node)) throw new TypeError('the value contains a cycle');
  open.push(node);
  let out: string;
  if (Array.isArray(node)) {
    out = `[${node.map((item: unknown) => walk(item, open)).join(',')}]`;
  } else {
    const members: string[] = [];
    for (const [key, item] of Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (item !== undefined) members.push(`${JSON.stringify(key)}:${walk(item, open)}`);
    }
    out = `{${members.join(',')}}`;
  }
  open.pop();
  return out;
}
