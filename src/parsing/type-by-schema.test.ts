import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, JsonSchema } from '../core/json.ts';
import { typeBySchema } from './type-by-schema.ts';

function object(properties: Record<string, unknown>, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, ...extra };
}

/** The typed arguments, asserting the changes are exactly the paths given. */
function typed(args: JsonObject, schema: JsonSchema, paths: string[]): JsonObject {
  const result = typeBySchema(args, schema);
  assert.deepEqual(
    result.changes.map((c) => c.path),
    paths,
  );
  return result.arguments;
}

describe('typeBySchema', () => {
  it('reads a string holding an array where the schema wants an array, and records the change', () => {
    const result = typeBySchema(
      { tags: '["a", "b"]', n: 1 },
      object({ tags: { type: 'array', items: { type: 'string' } } }),
    );
    assert.deepEqual(result, {
      arguments: { tags: ['a', 'b'], n: 1 },
      changes: [{ path: '/tags', from: '["a", "b"]', to: ['a', 'b'] }],
    });
  });

  it('reads Python literals and trailing commas', () => {
    const schema = object({ list: { type: 'array' }, dict: { type: 'object' }, nums: { type: 'array' } });
    assert.deepEqual(
      typed({ list: "['a', 'b']", dict: "{'k': True, 'n': None}", nums: '[1, 2,]' }, schema, [
        '/list',
        '/dict',
        '/nums',
      ]),
      {
        list: ['a', 'b'],
        dict: { k: true, n: null },
        nums: [1, 2],
      },
    );
  });

  it('follows type lists without "string"', () => {
    assert.deepEqual(typed({ a: '[1]' }, object({ a: { type: ['array', 'null'] } }), ['/a']), { a: [1] });
    assert.deepEqual(typed({ a: '{"x": 1}' }, object({ a: { type: ['object', 'array'] } }), ['/a']), { a: { x: 1 } });
  });

  it('follows anyOf and oneOf whose options are containers (or null)', () => {
    assert.deepEqual(typed({ a: '[1]' }, object({ a: { anyOf: [{ type: 'array' }, { type: 'null' }] } }), ['/a']), {
      a: [1],
    });
    assert.deepEqual(
      typed({ a: '{"k": 1}' }, object({ a: { oneOf: [{ type: 'array' }, { type: 'object' }] } }), ['/a']),
      { a: { k: 1 } },
    );
  });

  it('follows local $refs to $defs and definitions', () => {
    const defs = {
      type: 'object',
      properties: { f: { $ref: '#/$defs/Filter' } },
      $defs: { Filter: { type: 'object', properties: { ids: { $ref: '#/$defs/Ids' } } }, Ids: { type: 'array' } },
    };
    assert.deepEqual(typed({ f: '{"ids": "[1, 2]"}' }, defs, ['/f/ids', '/f']), { f: { ids: [1, 2] } });
    const definitions = {
      type: 'object',
      properties: { list: { $ref: '#/definitions/List' } },
      definitions: { List: { type: 'array' } },
    };
    assert.deepEqual(typed({ list: '["x"]' }, definitions, ['/list']), { list: ['x'] });
  });

  it('walks nested properties, items, prefixItems and additionalProperties, with JSON Pointer paths', () => {
    const schema = object({
      filter: object({ ids: { type: 'array' } }),
      rows: { type: 'array', items: object({ tags: { type: 'array' } }) },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'object' }] },
      'a/b~c': { type: 'array' },
      extra: { type: 'object', additionalProperties: { type: 'array' } },
    });
    const args = {
      filter: { ids: '[1]' },
      rows: [{ tags: '["a"]' }, { tags: ['b'] }],
      pair: ['{}', '{}'],
      'a/b~c': '[]',
      extra: { any: '[true]' },
    };
    assert.deepEqual(typed(args, schema, ['/filter/ids', '/rows/0/tags', '/pair/1', '/a~1b~0c', '/extra/any']), {
      filter: { ids: [1] },
      rows: [{ tags: ['a'] }, { tags: ['b'] }],
      pair: ['{}', {}],
      'a/b~c': [],
      extra: { any: [true] },
    });
  });

  it('leaves a string the schema allows as it is', () => {
    for (const schema of [
      { type: 'string' },
      { type: ['array', 'string'] },
      { anyOf: [{ type: 'array' }, { type: 'string' }] },
      { oneOf: [{ type: 'object' }, {}] },
      {},
      { items: {} },
    ]) {
      assert.deepEqual(typed({ a: '[1, 2]' }, object({ a: schema }), []), { a: '[1, 2]' }, JSON.stringify(schema));
    }
    assert.deepEqual(
      typed({ a: '[1]' }, { type: 'object' }, []),
      { a: '[1]' },
      'a property the schema does not describe',
    );
  });

  it('leaves a value that already fits as it is', () => {
    assert.deepEqual(
      typed({ a: ['[1]'], b: { c: '{}' } }, object({ a: { type: 'array' }, b: { type: 'object' } }), []),
      { a: ['[1]'], b: { c: '{}' } },
    );
  });

  it('leaves a string that does not read, or reads as something else, as it is', () => {
    const schema = object({ a: { type: 'array' }, o: { type: 'object' } });
    for (const args of [
      { a: '[1, 2' },
      { a: 'a, b' },
      { a: '{"x": 1}' },
      { o: '[1]' },
      { a: '[hello]' },
      { a: '' },
      { o: '{"a": 1}{"b": 2}' },
    ]) {
      assert.deepEqual(typeBySchema(args, schema), { arguments: args, changes: [] }, JSON.stringify(args));
    }
  });

  it('refuses what it read past the shape limits', () => {
    const schema = object({ a: { type: 'array' } });
    assert.deepEqual(
      typed({ a: `${'['.repeat(63)}${']'.repeat(63)}` }, schema, ['/a']).a,
      JSON.parse(`${'['.repeat(63)}${']'.repeat(63)}`),
    );
    assert.deepEqual(typed({ a: `${'['.repeat(64)}${']'.repeat(64)}` }, schema, []), {
      a: `${'['.repeat(64)}${']'.repeat(64)}`,
    });
    assert.deepEqual(typed({ a: '[1e400]' }, schema, []), { a: '[1e400]' });
  });

  it('returns a new object and never mutates its input', () => {
    const args = { filter: { ids: '[1]' }, keep: { x: 1 } };
    const snapshot = structuredClone(args);
    const result = typeBySchema(args, object({ filter: object({ ids: { type: 'array' } }) }));
    assert.deepEqual(args, snapshot);
    assert.notEqual(result.arguments, args);
    assert.notEqual(typeBySchema(args, {}).arguments, args);
  });

  it('keeps "__proto__" as data', () => {
    const args = JSON.parse('{"__proto__": "[1]", "a": "[2]"}') as JsonObject;
    const result = typeBySchema(args, object({ a: { type: 'array' }, ['__proto__']: { type: 'array' } }));
    assert.equal(Object.getPrototypeOf(result.arguments), Object.prototype);
    assert.deepEqual(Object.keys(result.arguments), ['__proto__', 'a']);
  });

  it('never throws on cyclic, broken or hostile schemas, nor on deep arguments', () => {
    const cyclic = { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' }, B: { anyOf: [{ $ref: '#/$defs/B' }] } } };
    const hostile = object({}, {});
    Object.defineProperty(hostile, 'properties', {
      get: () => {
        throw new Error('boom');
      },
      enumerable: true,
    });
    let deep: JsonObject = { a: '[1]' };
    for (let i = 0; i < 10_000; i += 1) deep = { a: deep };
    for (const schema of [
      cyclic,
      { anyOf: [{ $ref: '#/$defs/B' }], $defs: cyclic.$defs },
      { $ref: 'http://x/y' },
      { $ref: '#/nope' },
      { properties: null, items: 3, anyOf: 'x' },
      hostile,
    ]) {
      assert.doesNotThrow(() => typeBySchema({ a: '[1]', b: { c: '{}' } }, schema));
    }
    const recursive = {
      $ref: '#/$defs/N',
      $defs: { N: { type: 'object', properties: { a: { anyOf: [{ $ref: '#/$defs/N' }, { type: 'array' }] } } } },
    };
    assert.doesNotThrow(() => typeBySchema(deep, recursive));
  });
});
