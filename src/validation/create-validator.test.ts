import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonSchema, JsonValue } from '../core/json.ts';
import { createValidator } from './create-validator.ts';
import type { ValidationIssue } from './issues.ts';
import {
  DEFINITIONS_SCHEMA,
  EDIT_FILE_SCHEMA,
  PLACE_ORDER_SCHEMA,
  PYDANTIC_SCHEMA,
  WRITE_FILE_SCHEMA,
} from '../../test/support/test-schemas.ts';

function issuesOf(result: ReturnType<ReturnType<typeof createValidator>['validate']>): ValidationIssue[] {
  assert.equal(result.ok, false, 'expected the value to be invalid');
  return result.ok ? [] : result.issues;
}

const ORDER = { userId: 'alice', side: 'BUY', price: 42.5, qty: 10 };

describe('createValidator', () => {
  const validator = createValidator();

  it('accepts valid arguments for 2020-12, draft-07 and $schema-less schemas', () => {
    assert.deepEqual(validator.validate(PLACE_ORDER_SCHEMA, ORDER), { ok: true });
    assert.deepEqual(validator.validate(WRITE_FILE_SCHEMA, { path: '/tmp/a.txt', content: 'hi' }), { ok: true });
    assert.deepEqual(validator.validate(EDIT_FILE_SCHEMA, { path: 'a', edits: [{ oldText: 'x', newText: 'y' }] }), {
      ok: true,
    });
    assert.deepEqual(
      validator.validate(PYDANTIC_SCHEMA, {
        customerId: 'c1',
        currency: 'EUR',
        lines: [{ description: 'x', quantity: 2, unitPrice: 1.5 }],
        dueDays: null,
      }),
      { ok: true },
    );
    assert.deepEqual(validator.validate(DEFINITIONS_SCHEMA, { name: 'n', address: { street: 's', zip: '12345' } }), {
      ok: true,
    });
  });

  it('reports a missing property at its own path', () => {
    const { side: _side, ...rest } = ORDER;
    const issues = issuesOf(validator.validate(PLACE_ORDER_SCHEMA, rest));
    assert.deepEqual(issues, [
      { code: 'required', path: '/side', message: 'is required but missing', expected: 'one of "BUY", "SELL"' },
    ]);
  });

  it('reports type, enum, minimum and additional properties with what was sent', () => {
    const issues = issuesOf(
      validator.validate(PLACE_ORDER_SCHEMA, { userId: 'alice', side: 'buy', price: 0, qty: '7,000', extra: true }),
    );
    const byPath = new Map(issues.map((i) => [i.path, i]));
    assert.equal(byPath.get('/extra')?.code, 'additional_property');
    assert.equal(byPath.get('/extra')?.received, true);
    assert.deepEqual(byPath.get('/side'), {
      code: 'enum',
      path: '/side',
      message: 'must be one of "BUY", "SELL"',
      expected: 'one of "BUY", "SELL"',
      received: 'buy',
    });
    assert.equal(byPath.get('/price')?.code, 'minimum');
    assert.equal(byPath.get('/price')?.expected, '> 0');
    assert.equal(byPath.get('/qty')?.code, 'type');
    assert.equal(byPath.get('/qty')?.expected, 'number');
    assert.equal(byPath.get('/qty')?.received, '7,000');
    assert.equal(issues.length, 4);
  });

  it('maps string, array and format keywords to their codes', () => {
    const codes = (schema: JsonSchema, value: object) =>
      issuesOf(validator.validate(schema, value as never)).map((i) => `${i.code}@${i.path}`);
    assert.deepEqual(codes(PLACE_ORDER_SCHEMA, { ...ORDER, userId: '' }), ['min_length@/userId']);
    assert.deepEqual(codes(DEFINITIONS_SCHEMA, { name: 'n', email: 'not-an-email' }), ['format@/email']);
    assert.deepEqual(codes(DEFINITIONS_SCHEMA, { name: 'n', tags: ['a', 'a'] }), ['unique_items@/tags']);
    assert.deepEqual(codes(DEFINITIONS_SCHEMA, { name: 'n', tags: ['a', 'b', 'c', 'd'] }), ['max_items@/tags']);
    assert.deepEqual(codes(PYDANTIC_SCHEMA, { customerId: 'c', currency: 'EUR', lines: [] }), ['min_items@/lines']);
    assert.deepEqual(
      codes({ type: 'object', properties: { s: { type: 'string', maxLength: 2, pattern: '^a' } } }, { s: 'bcd' }),
      ['max_length@/s', 'pattern@/s'],
    );
    assert.deepEqual(codes({ type: 'object', properties: { n: { type: 'integer', maximum: 5 } } }, { n: 6 }), [
      'maximum@/n',
    ]);
    assert.deepEqual(codes({ type: 'object', properties: { c: { const: 'x' } } }, { c: 'y' }), ['const@/c']);
    assert.deepEqual(codes({ type: 'object', properties: { c: { not: { type: 'string' } } } }, { c: 'y' }), ['not@/c']);
    assert.deepEqual(codes({ type: 'object', properties: { c: { multipleOf: 2 } } }, { c: 3 }), ['other@/c']);
  });

  it('follows $defs and definitions refs and reports errors at the data path', () => {
    const issues = issuesOf(
      validator.validate(PYDANTIC_SCHEMA, {
        customerId: 'c',
        currency: 'YEN',
        lines: [{ description: 'x', quantity: 0 }],
      }),
    );
    assert.deepEqual(issues.map((i) => `${i.code}@${i.path}`).sort(), [
      'enum@/currency',
      'minimum@/lines/0/quantity',
      'required@/lines/0/unitPrice',
    ]);
    const zip = issuesOf(validator.validate(DEFINITIONS_SCHEMA, { name: 'n', address: { street: 's', zip: 'abc' } }));
    assert.deepEqual(
      zip.map((i) => `${i.code}@${i.path}`),
      ['pattern@/address/zip'],
    );
  });

  it('treats a schema without $schema as 2020-12 but still compiles draft-07-only shapes', () => {
    // prefixItems is 2020-12 only; a draft-07 validator would ignore it.
    const modern = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    };
    assert.equal(issuesOf(validator.validate(modern, { pair: ['a', 'b'] }))[0]?.path, '/pair/1');
    // Tuple `items` is not valid 2020-12, so this schema is retried as draft-07.
    const legacy = {
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    };
    assert.equal(issuesOf(validator.validate(legacy, { pair: ['a', 'b'] }))[0]?.path, '/pair/1');
  });

  it('honours $schema: draft-07 keeps draft-07 semantics', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { p: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
    };
    assert.deepEqual(validator.validate(schema, { p: ['a'] }), { ok: true });
    assert.equal(issuesOf(validator.validate(schema, { p: ['a', 'b'] }))[0]?.path, '/p');
  });

  it('ignores unknown keywords and unknown formats', () => {
    const schema = {
      type: 'object',
      'x-internal': true,
      properties: { a: { type: 'string', format: 'made-up', examples: ['x'], 'x-order': 1 } },
    };
    assert.deepEqual(validator.validate(schema, { a: 'anything' }), { ok: true });
  });

  it('reports a broken schema as invalid_schema instead of throwing', () => {
    for (const schema of [
      { type: 'object', properties: { a: { type: 'float' } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } },
      { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
    ]) {
      const issues = issuesOf(validator.validate(schema, { a: 'x' }));
      assert.equal(issues.length, 1);
      assert.equal(issues[0]?.code, 'invalid_schema');
      assert.equal(issues[0]?.path, '');
      assert.match(issues[0]?.message ?? '', /not a usable JSON Schema/);
    }
  });

  it('accepts regex patterns written for non-unicode regular expressions', () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+\\-[0-9]+$' } } };
    assert.deepEqual(validator.validate(schema, { id: 'ab-12' }), { ok: true });
    assert.equal(issuesOf(validator.validate(schema, { id: 'ab_12' }))[0]?.code, 'pattern');
  });

  it('keeps two schemas with the same $id apart', () => {
    const a = { $id: 'urn:tool:input', type: 'object', properties: { x: { type: 'string' } } };
    const b = { $id: 'urn:tool:input', type: 'object', properties: { x: { type: 'number' } } };
    assert.deepEqual(validator.validate(a, { x: 's' }), { ok: true });
    assert.deepEqual(validator.validate(b, { x: 1 }), { ok: true });
    assert.equal(issuesOf(validator.validate(b, { x: 's' }))[0]?.code, 'type');
  });

  it('gives the same answers after cache eviction (bounded cache)', () => {
    const small = createValidator({ cacheSize: 2 });
    const schemas = [1, 2, 3, 4].map((max) => ({
      type: 'object',
      properties: { n: { type: 'integer', maximum: max } },
    }));
    for (let round = 0; round < 3; round += 1) {
      schemas.forEach((schema, i) => {
        assert.deepEqual(small.validate(schema, { n: i + 1 }), { ok: true });
        assert.equal(issuesOf(small.validate(structuredClone(schema), { n: i + 2 }))[0]?.code, 'maximum');
      });
    }
  });

  it('shares one compiled validator between equal schemas sent as different objects', () => {
    // Same content, different key order and identity: the answers are the same.
    const one = { type: 'object', required: ['a'], properties: { a: { type: 'string' } } };
    const two = { properties: { a: { type: 'string' } }, required: ['a'], type: 'object' };
    assert.deepEqual(validator.validate(one, {}), validator.validate(two, {}));
  });

  it('never throws on any JSON value', () => {
    const values = [null, 1, 'x', [], [1, 'a'], { a: { b: [null] } }, true];
    for (const value of values) {
      for (const schema of [PLACE_ORDER_SCHEMA, PYDANTIC_SCHEMA, DEFINITIONS_SCHEMA, EDIT_FILE_SCHEMA]) {
        const result = validator.validate(schema, value);
        assert.equal(result.ok, false);
      }
    }
  });

  describe('shape limits', () => {
    const nest = (depth: number, leaf: JsonValue = 1): JsonValue => {
      let value = leaf;
      for (let i = 0; i < depth; i += 1) value = [value];
      return value;
    };
    const ANY: JsonSchema = { type: 'object' };

    it('refuses a value nested deeper than 64 levels with too_deep, at the level that crosses the limit', () => {
      for (const depth of [64, 2_500, 100_000]) {
        const issues = issuesOf(validator.validate(ANY, { x: nest(depth) }));
        assert.equal(issues.length, 1);
        assert.equal(issues[0]?.code, 'too_deep');
        assert.match(issues[0]?.message ?? '', /deeper than 64 levels/);
        assert.equal(issues[0]?.path, `/x${'/0'.repeat(63)}`);
      }
      assert.deepEqual(validator.validate(ANY, { x: nest(63) }), { ok: true });
    });

    it(
      'refuses non-finite numbers anywhere with not_finite ' +
        'and their path, even where the schema allows any number',
      () => {
        for (const bad of [Infinity, -Infinity, Number.NaN]) {
          const issues = issuesOf(validator.validate(PLACE_ORDER_SCHEMA, { ...ORDER, qty: bad }));
          assert.deepEqual(
            issues.map((i) => [i.code, i.path]),
            [['not_finite', '/qty']],
          );
          assert.match(issues[0]?.message ?? '', /not a finite number/);
        }
        assert.deepEqual(
          issuesOf(validator.validate({}, { a: [1, { b: Infinity }] })).map((i) => [i.code, i.path]),
          [['not_finite', '/a/1/b']],
        );
      },
    );

    it('refuses a value with more elements than the limit with too_large', () => {
      const issues = issuesOf(validator.validate(ANY, { xs: new Array<number>(100_001).fill(0) }));
      assert.deepEqual(
        issues.map((i) => i.code),
        ['too_large'],
      );
    });

    it('takes its limits from the options', () => {
      const strict = createValidator({ maxDepth: 2, maxNodes: 5 });
      assert.equal(issuesOf(strict.validate(ANY, { a: { b: {} } }))[0]?.code, 'too_deep');
      assert.equal(issuesOf(strict.validate(ANY, { a: [1, 2, 3, 4, 5] }))[0]?.code, 'too_large');
      assert.deepEqual(strict.validate(ANY, { a: [1, 2] }), { ok: true });
    });
  });
});
