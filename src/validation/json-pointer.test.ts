import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appendPointer, fieldName, pointerSegments } from './json-pointer.ts';

describe('json-pointer', () => {
  it('escapes and reads back segments', () => {
    const pointer = appendPointer(appendPointer('', 'a/b'), 'c~d');
    assert.equal(pointer, '/a~1b/c~0d');
    assert.deepEqual(pointerSegments(pointer), ['a/b', 'c~d']);
    assert.deepEqual(pointerSegments('#/$defs/My%20Type'), ['$defs', 'My Type']);
    assert.deepEqual(pointerSegments(''), []);
  });

  it('names fields the way a model reads them', () => {
    assert.equal(fieldName(''), '(arguments)');
    assert.equal(fieldName('/qty'), 'qty');
    assert.equal(fieldName('/lines/0/quantity'), 'lines[0].quantity');
    assert.equal(fieldName('/a~1b'), 'a/b');
  });
});
