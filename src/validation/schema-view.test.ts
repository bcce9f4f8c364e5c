import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedTypes, itemSchema, objectView, propertySchema, resolveSchema, typeAccepts } from './schema-view.ts';
import { DEFINITIONS_SCHEMA, PYDANTIC_SCHEMA } from '../../test/support/test-schemas.ts';

describe('schema-view', () => {
  it('resolves local refs, keeping sibling keywords', () => {
    const root = { $defs: { A: { type: 'string', minLength: 1 } }, definitions: { B: { $ref: '#/$defs/A' } } };
    assert.deepEqual(resolveSchema({ $ref: '#/definitions/B' }, root), { type: 'string', minLength: 1 });
    assert.deepEqual(resolveSchema({ $ref: '#/$defs/A', maxLength: 3, description: 'd' }, root), {
      type: 'string',
      minLength: 1,
      maxLength: 3,
    });
    assert.deepEqual(resolveSchema({ $ref: 'https://example.com/s.json', type: 'number' }, root), { type: 'number' });
    assert.equal(resolveSchema({ $ref: '#/$defs/Loop' }, { $defs: { Loop: { $ref: '#/$defs/Loop' } } }), undefined);
  });

  it('computes the JSON types a schema admits', () => {
    const types = (node: unknown, root = {}) => {
      const set = allowedTypes(node, root);
      return set === undefined ? undefined : [...set].sort();
    };
    assert.deepEqual(types({ type: ['number', 'null'] }), ['null', 'number']);
    assert.deepEqual(types({ enum: ['a', 1, null] }), ['null', 'number', 'string']);
    assert.deepEqual(types({ anyOf: [{ type: 'integer' }, { type: 'null' }] }), ['integer', 'null']);
    assert.deepEqual(types({ allOf: [{ type: ['number', 'string'] }, { type: 'integer' }] }), ['integer']);
    assert.equal(types({ anyOf: [{ type: 'string' }, {}] }), undefined);
    assert.deepEqual(types(false), []);
    assert.deepEqual(types((PYDANTIC_SCHEMA['properties'] as Record<string, unknown>)['currency'], PYDANTIC_SCHEMA), [
      'string',
    ]);
  });

  it('accepts integral numbers for integer and any number for number', () => {
    assert.ok(typeAccepts(new Set(['integer']), 3));
    assert.ok(!typeAccepts(new Set(['integer']), 3.5));
    assert.ok(typeAccepts(new Set(['number']), 3.5));
    assert.ok(!typeAccepts(new Set(['string']), null));
    assert.ok(typeAccepts(undefined, null));
  });

  it('finds property and item schemas', () => {
    const view = objectView(DEFINITIONS_SCHEMA, DEFINITIONS_SCHEMA);
    assert.deepEqual([...view.required], ['name']);
    assert.deepEqual(propertySchema(view, 'name'), { type: 'string' });
    assert.equal(propertySchema(view, 'unknown'), undefined);
    assert.equal(propertySchema(view, 'constructor'), undefined, 'no prototype lookups');
    const meta = objectView(
      (DEFINITIONS_SCHEMA['properties'] as Record<string, unknown>)['metadata'],
      DEFINITIONS_SCHEMA,
    );
    assert.deepEqual(propertySchema(meta, 'anything'), { type: 'string' });
    const tuple = { prefixItems: [{ type: 'string' }], items: { type: 'number' } };
    assert.deepEqual(itemSchema(tuple, {}, 0), { type: 'string' });
    assert.deepEqual(itemSchema(tuple, {}, 5), { type: 'number' });
    const legacy = { items: [{ type: 'string' }], additionalItems: { type: 'boolean' } };
    assert.deepEqual(itemSchema(legacy, {}, 1), { type: 'boolean' });
  });

  it('merges allOf members and pattern properties into the object view', () => {
    const schema = {
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } }, required: ['b'] },
      ],
      patternProperties: { '^x-': { type: 'boolean' } },
    };
    const view = objectView(schema, schema);
    assert.deepEqual([...view.required].sort(), ['a', 'b']);
    assert.deepEqual(propertySchema(view, 'b'), { type: 'number' });
    assert.deepEqual(propertySchema(view, 'x-flag'), { type: 'boolean' });
  });

  it('makes a view and a type set once per schema object and root, and a root of its own gets its own', () => {
    const root = {
      $defs: { Id: { type: 'integer' } },
      type: 'object',
      properties: { id: { $ref: '#/$defs/Id' }, tags: { type: 'array' } },
      required: ['id'],
    };
    const view = objectView(root, root);
    assert.equal(objectView(root, root), view, 'the same view, not made again');
    assert.deepEqual([...view.properties.keys()], ['id', 'tags']);
    assert.deepEqual([...view.required], ['id']);
    const idSchema = view.properties.get('id');
    assert.equal(allowedTypes(idSchema, root), allowedTypes(idSchema, root));
    assert.deepEqual([...(allowedTypes(idSchema, root) ?? [])], ['integer']);
    // The same `$ref` under another root leads elsewhere: its answer is not the first root's.
    const otherRoot = { $defs: { Id: { type: 'string' } } };
    assert.deepEqual([...(allowedTypes(idSchema, otherRoot) ?? [])], ['string']);
    // "Any type" is remembered too, and stays "any type".
    assert.equal(allowedTypes({}, root), undefined);
    const open = {};
    assert.equal(allowedTypes(open, root), undefined);
    assert.equal(allowedTypes(open, root), undefined);
  });
});
