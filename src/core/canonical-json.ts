import { isRecord } from './json.ts';

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
  // Built by concatenation, keys sorted in place (the default order is by UTF-16 code units, as `<` compares):
  // on every tool call and result (repeated-call detection, result fingerprints), so no entries, closures or joins.
  let out: string;
  if (Array.isArray(node)) {
    out = '[';
    for (let i = 0; i < node.length; i += 1) out += (i === 0 ? '' : ',') + walk(node[i], open);
    out += ']';
  } else if (isRecord(node)) {
    const record = node;
    const keys = Object.keys(record).sort();
    out = '{';
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + walk(item, open);
    }
    out += '}';
  } else {
    out = '{}';
  }
  open.pop();
  return out;
}
