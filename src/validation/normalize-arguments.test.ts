import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../core/json.ts';
import { createValidator } from './create-validator.ts';
import { normalizeArguments } from './normalize-arguments.ts';
import {
  DEFINITIONS_SCHEMA,
  DISCRIMINATED_SCHEMA,
  EDIT_FILE_SCHEMA,
  PLACE_ORDER_SCHEMA,
  PYDANTIC_SCHEMA,
  WRITE_FILE_SCHEMA,
} from '../../test/support/test-schemas.ts';

const validator = createValidator();

describe('normalizeArguments', () => {
  it('repairs the seed platform mistakes in placeOrder', () => {
    const args = { userId: 'alice', side: 'buy', price: '7,000', qty: '1 000.5', symbol: null };
    const { arguments: out, changes } = normalizeArguments(PLACE_ORDER_SCHEMA, args);
    assert.deepEqual(out, { userId: 'alice', side: 'BUY', price: 7000, qty: 1000.5 });
    assert.deepEqual(changes, [
      { path: '/side', from: 'buy', to: 'BUY', rule: 'enum_case' },
      { path: '/price', from: '7,000', to: 7000, rule: 'number_from_string' },
      { path: '/qty', from: '1 000.5', to: 1000.5, rule: 'number_from_string' },
      { path: '/symbol', from: null, to: undefined, rule: 'drop_null_optional' },
    ]);
    assert.deepEqual(validator.validate(PLACE_ORDER_SCHEMA, out), { ok: true });
    assert.equal(args.side, 'buy', 'the input is not mutated');
  });

  it('reads every grouped number style the brief names', () => {
    for (const [text, expected] of [
      ['7,000', 7000],
      ['1 000.5', 1000.5],
      ['1,234,567.8', 1234567.8],
      ['7 000', 7000],
      ['7_000', 7000],
    ] as const) {
      assert.equal(normalizeArguments(PLACE_ORDER_SCHEMA, { price: text }).arguments['price'], expected, text);
    }
  });

  it('does not coerce an ambiguous European decimal', () => {
    const { arguments: out, changes } = normalizeArguments(PLACE_ORDER_SCHEMA, { price: '1,5', qty: '1.234,5' });
    assert.deepEqual(out, { price: '1,5', qty: '1.234,5' });
    assert.deepEqual(changes, []);
  });

  it('coerces to integer only when the result is integral', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' }, m: { type: 'integer' } } };
    const result = normalizeArguments(schema, { n: '7,000', m: '7.5' });
    assert.deepEqual(result.arguments, { n: 7000, m: '7.5' });
    assert.deepEqual(result.changes, [{ path: '/n', from: '7,000', to: 7000, rule: 'integer_from_string' }]);
  });

  it('turns numbers into strings where a string is wanted', () => {
    const result = normalizeArguments(PLACE_ORDER_SCHEMA, { userId: 42, symbol: 1.5 });
    assert.deepEqual(result.arguments, { userId: '42', symbol: '1.5' });
    assert.deepEqual(
      result.changes.map((c) => c.rule),
      ['string_from_number', 'string_from_number'],
    );
  });

  it('matches enum values case-insensitively and trimmed, only when unambiguous', () => {
    assert.equal(normalizeArguments(PLACE_ORDER_SCHEMA, { side: ' Sell ' }).arguments['side'], 'SELL');
    const ambiguous = { type: 'object', properties: { mode: { enum: ['fast', 'FAST', 'slow'] } } };
    assert.deepEqual(normalizeArguments(ambiguous, { mode: 'Fast' }).changes, []);
    assert.equal(normalizeArguments(ambiguous, { mode: ' slow' }).arguments['mode'], 'slow');
    assert.equal(normalizeArguments(PLACE_ORDER_SCHEMA, { side: 'long' }).arguments['side'], 'long');
  });

  it('never drops null for a required property or one that accepts null', () => {
    const required = normalizeArguments(PLACE_ORDER_SCHEMA, { userId: null, price: null });
    assert.deepEqual(required.arguments, { userId: null, price: null });
    assert.deepEqual(required.changes, []);
    const nullable = normalizeArguments(PYDANTIC_SCHEMA, { dueDays: null, note: null, paid: null });
    assert.deepEqual(nullable.arguments, { dueDays: null, note: null });
    assert.deepEqual(nullable.changes, [{ path: '/paid', from: null, to: undefined, rule: 'drop_null_optional' }]);
  });

  it('keeps null for a property the parent requires even when a union branch does not', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }],
    };
    assert.deepEqual(normalizeArguments(schema, { a: null }), { arguments: { a: null }, changes: [] });
    const optional = { type: 'object', anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }] };
    assert.deepEqual(normalizeArguments(optional, { a: null }).arguments, {});
  });

  it('parses stringified JSON where an object or array is wanted, then normalises inside it', () => {
    const result = normalizeArguments(EDIT_FILE_SCHEMA, {
      path: 'a.txt',
      edits: '[{"oldText":"a","newText":"b"}]',
      dryRun: 'TRUE',
    });
    assert.deepEqual(result.arguments, { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }], dryRun: true });
    assert.deepEqual(
      result.changes.map((c) => `${c.rule}@${c.path}`),
      ['json_from_string@/edits', 'boolean_from_string@/dryRun'],
    );
    const nested = normalizeArguments(PYDANTIC_SCHEMA, {
      lines: '[{"description":"x","quantity":"2","unitPrice":"1,250.5"}]',
    });
    assert.deepEqual(nested.arguments['lines'], [{ description: 'x', quantity: 2, unitPrice: 1250.5 }]);
    assert.deepEqual(
      nested.changes.map((c) => `${c.rule}@${c.path}`),
      ['json_from_string@/lines', 'integer_from_string@/lines/0/quantity', 'number_from_string@/lines/0/unitPrice'],
    );
  });

  it('leaves strings alone where a string is wanted, even if they look like JSON or numbers', () => {
    const args = { path: '7,000', content: '{"a": 1}' };
    const result = normalizeArguments(WRITE_FILE_SCHEMA, args);
    assert.deepEqual(result.arguments, args);
    assert.deepEqual(result.changes, []);
  });

  it('follows $ref and single-type unions', () => {
    const result = normalizeArguments(PYDANTIC_SCHEMA, { currency: 'eur', dueDays: '30', note: 12 });
    assert.deepEqual(result.arguments, { currency: 'EUR', dueDays: 30, note: '12' });
    const address = normalizeArguments(DEFINITIONS_SCHEMA, { address: { street: 'Main', zip: 12345 } });
    assert.deepEqual(address.arguments, { address: { street: 'Main', zip: '12345' } });
    assert.deepEqual(address.changes, [{ path: '/address/zip', from: 12345, to: '12345', rule: 'string_from_number' }]);
  });

  it('follows additionalProperties and array items', () => {
    const result = normalizeArguments(DEFINITIONS_SCHEMA, { metadata: { a: 1, b: 'x' }, tags: [1, 'two'] });
    assert.deepEqual(result.arguments, { metadata: { a: '1', b: 'x' }, tags: ['1', 'two'] });
  });

  it('normalises inside the discriminated branch the value belongs to', () => {
    const result = normalizeArguments(DISCRIMINATED_SCHEMA, { target: { kind: 'group', size: '12' } });
    assert.deepEqual(result.arguments, { target: { kind: 'group', size: 12 } });
  });

  it('does not guess between union branches that both fit the type', () => {
    const schema = {
      type: 'object',
      properties: { v: { anyOf: [{ type: 'number' }, { type: 'boolean' }, { type: 'string', enum: ['x'] }] } },
    };
    assert.deepEqual(normalizeArguments(schema, { v: 'true' }).changes, []);
    const numeric = { type: 'object', properties: { v: { anyOf: [{ type: 'number' }, { type: 'null' }] } } };
    assert.deepEqual(normalizeArguments(numeric, { v: '1,000' }).arguments, { v: 1000 });
  });

  it('never coerces what the schema does not ask for', () => {
    const open = { type: 'object', properties: { known: { type: 'number' } } };
    const args = { unknown: '7,000', other: 'buy', flag: 'true' };
    assert.deepEqual(normalizeArguments(open, args), { arguments: args, changes: [] });
    assert.deepEqual(normalizeArguments({}, { a: '1' }), { arguments: { a: '1' }, changes: [] });
    // Booleans are not strings, and "yes" is not a boolean.
    const bools = { type: 'object', properties: { s: { type: 'string' }, b: { type: 'boolean' } } };
    assert.deepEqual(normalizeArguments(bools, { s: true, b: 'yes' }).changes, []);
  });

  it('infers the wanted type from an enum without a type', () => {
    const schema = { type: 'object', properties: { level: { enum: [1, 2, 3] } } };
    assert.deepEqual(normalizeArguments(schema, { level: '2' }).arguments, { level: 2 });
  });

  it('keeps a "__proto__" key as data', () => {
    const args = JSON.parse('{"__proto__": {"x": 1}, "price": "5"}') as Record<string, never>;
    const out = normalizeArguments(PLACE_ORDER_SCHEMA, args).arguments;
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(out['price'], 5);
  });

  it('returns a new object that shares nothing with the input', () => {
    const args = { edits: [{ oldText: 'a', newText: 'b' }], path: 'p' };
    const out = normalizeArguments(EDIT_FILE_SCHEMA, args).arguments;
    assert.deepEqual(out, args);
    assert.notEqual(out, args);
    assert.notEqual(out['edits'], args.edits);
  });

  describe('shape limits', () => {
    const nest = (depth: number): JsonValue => {
      let value: JsonValue = 'x';
      for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
      return value;
    };

    it('leaves arguments past the shape limits as they are, without overflowing the stack', () => {
      for (const depth of [65, 10_000, 30_000]) {
        const args = { price: '5', deep: nest(depth) };
        const result = normalizeArguments(PLACE_ORDER_SCHEMA, args);
        assert.deepEqual(result.changes, []);
        assert.equal(result.arguments['price'], '5');
        assert.notEqual(result.arguments, args);
      }
      const schema = { type: 'object', properties: { deep: { type: 'array', items: { type: 'array' } } } };
      assert.deepEqual(normalizeArguments(schema, { deep: nest(20_001) as JsonValue[] }).changes, []);
    });

    it('never turns a string into a number out of range', () => {
      const schema = {
        type: 'object',
        properties: { n: { type: 'number' }, i: { type: 'integer' }, o: { type: 'object' }, a: { type: 'array' } },
      };
      const args = { n: '1e400', i: '9'.repeat(400), o: '{"k": 1e400}', a: '[-1e999]' };
      assert.deepEqual(normalizeArguments(schema, args), { arguments: args, changes: [] });
    });

    it('does not parse stringified JSON nested past the limit', () => {
      const schema = { type: 'object', properties: { o: { type: 'object' } } };
      const o = `{"a": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
      assert.deepEqual(normalizeArguments(schema, { o }), { arguments: { o }, changes: [] });
    });
  });
});
