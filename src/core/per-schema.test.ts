import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PerSchema } from './per-schema.ts';

describe('PerSchema', () => {
  it('makes a value once per schema object and root, undefined included', () => {
    const cache = new PerSchema<string | undefined>();
    const schema = { type: 'object' };
    const [rootA, rootB] = [{ $defs: {} }, { $defs: {} }];
    let made = 0;
    const make = (value: string | undefined) => () => {
      made += 1;
      return value;
    };
    assert.equal(cache.get(schema, rootA, make('a')), 'a');
    assert.equal(cache.get(schema, rootA, make('again')), 'a');
    assert.equal(cache.get(schema, rootB, make('b')), 'b', 'another root: its own value');
    assert.equal(
      cache.get({ type: 'object' }, rootA, make('c')),
      'c',
      'an equal but distinct schema object: its own value',
    );
    const open = {};
    assert.equal(cache.get(open, rootA, make(undefined)), undefined);
    assert.equal(cache.get(open, rootA, make('not asked')), undefined, 'undefined is remembered too');
    assert.equal(made, 4);
  });
});
