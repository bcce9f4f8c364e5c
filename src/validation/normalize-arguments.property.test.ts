// Properties of normalisation over realistic schemas: it never breaks a valid
// call, never touches one, and a second pass changes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonObject, JsonSchema, JsonValue } from '../core/json.ts';
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
import { parseJson } from '../core/parse-json.ts';

const validator = createValidator();
// Tool arguments come from JSON.parse: plain prototypes, no -0.
const plain = (arb: fc.Arbitrary<unknown>): fc.Arbitrary<JsonObject> =>
  arb.map((v) => parseJson(JSON.stringify(v)) as JsonObject);
const positive = fc.double({ min: 0.001, max: 1e9, noNaN: true });
const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;

const VALID: [string, JsonSchema, fc.Arbitrary<JsonObject>][] = [
  [
    'placeOrder',
    PLACE_ORDER_SCHEMA,
    fc.record(
      {
        userId: fc.string({ minLength: 1 }),
        side: fc.constantFrom('BUY', 'SELL'),
        price: positive,
        qty: positive,
        symbol: fc.string(),
      },
      { requiredKeys: ['userId', 'side', 'price', 'qty'] },
    ),
  ],
  [
    'create_invoice',
    PYDANTIC_SCHEMA,
    fc.record(
      {
        customerId: fc.string(),
        currency: fc.constantFrom('EUR', 'USD', 'GBP'),
        lines: fc.array(
          fc.record({
            description: fc.string(),
            quantity: fc.integer({ min: 1 }),
            unitPrice: fc.double({ min: 0, max: 1e6, noNaN: true }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        dueDays: fc.option(fc.integer(), { nil: null }),
        paid: fc.boolean(),
        note: fc.option(fc.string({ maxLength: 200 }), { nil: null }),
      },
      { requiredKeys: ['customerId', 'currency', 'lines'] },
    ),
  ],
  [
    'definitions',
    DEFINITIONS_SCHEMA,
    fc.record(
      {
        name: fc.string(),
        email: fc.constantFrom('a@example.com', 'trader.one@power.example'),
        address: fc.option(fc.record({ street: fc.string(), zip: fc.stringMatching(/^[0-9]{5}$/) }), { nil: null }),
        tags: fc.uniqueArray(fc.string(), { maxLength: 3 }),
        metadata: fc.dictionary(fc.string(), fc.string()),
      },
      { requiredKeys: ['name'] },
    ),
  ],
  [
    'edit_file',
    EDIT_FILE_SCHEMA,
    fc.record(
      {
        path: fc.string(),
        edits: fc.array(fc.record({ oldText: fc.string(), newText: fc.string() })),
        dryRun: fc.boolean(),
      },
      { requiredKeys: ['path', 'edits'] },
    ),
  ],
  ['write_file', WRITE_FILE_SCHEMA, fc.record({ path: fc.string(), content: fc.string() })],
  [
    'discriminated',
    DISCRIMINATED_SCHEMA,
    fc.record({
      target: fc.oneof(
        fc.record({ kind: fc.constant('user'), userId: fc.string() }),
        fc.record({ kind: fc.constant('group'), size: fc.integer({ min: 1 }) }),
      ),
    }),
  ],
] as [string, JsonSchema, fc.Arbitrary<JsonObject>][];

/** Values models actually send wrong, mixed with arbitrary JSON. */
const tricky: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(
    '7,000',
    '1 000.5',
    '1,5',
    '1,234,567.8',
    '7_000',
    'buy',
    'Sell',
    ' BUY ',
    'eur',
    'true',
    'FALSE',
    'null',
    '',
    '12345',
    '3',
    '{"k":"7"}',
    '[1,"2"]',
    '[{"oldText":"a","newText":"b"}]',
    '[{"description":"x","quantity":"2","unitPrice":"3"}]',
    '{"street":"s","zip":12345}',
    '{"kind":"group","size":"3"}',
    '{"kind":"user","userId":5}',
    null,
    0,
    -1,
    2.5,
    7000,
    true,
    [],
    {},
  ),
  json,
);

function nearMiss(schema: JsonSchema): fc.Arbitrary<JsonObject> {
  const names = Object.keys((schema['properties'] ?? {}) as object);
  return plain(fc.dictionary(fc.constantFrom(...names, 'extra'), tricky, { maxKeys: names.length + 1 }));
}

/** Iterative, and without the paths checkJsonShape builds (quadratic on a value 10,000 levels deep). */
function holdsNonFinite(value: JsonValue): boolean {
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const item = stack.pop() as JsonValue;
    if (typeof item === 'number' && !Number.isFinite(item)) return true;
    if (item !== null && typeof item === 'object')
      for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push(child);
  }
  return false;
}

describe('normalizeArguments properties', () => {
  for (const [name, schema, valid] of VALID) {
    it(`${name}: a valid call is returned unchanged`, () => {
      fc.assert(
        fc.property(plain(valid), (args) => {
          assert.deepEqual(validator.validate(schema, args), { ok: true }, 'generator produced an invalid call');
          const result = normalizeArguments(schema, args);
          assert.deepEqual(result.changes, []);
          assert.deepEqual(result.arguments, args);
        }),
      );
    });

    it(`${name}: validate(normalize(x)) never turns a valid value invalid, and normalisation is idempotent`, () => {
      fc.assert(
        fc.property(plain(fc.oneof(valid, nearMiss(schema))), (args) => {
          const once = normalizeArguments(schema, args);
          if (validator.validate(schema, args).ok)
            assert.deepEqual(validator.validate(schema, once.arguments), { ok: true });
          const twice = normalizeArguments(schema, once.arguments);
          assert.deepEqual(twice.changes, []);
          assert.deepEqual(twice.arguments, once.arguments);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('repairs near-misses: a normalised call never has more issues than the original', () => {
    fc.assert(
      fc.property(nearMiss(PLACE_ORDER_SCHEMA), (args) => {
        const before = validator.validate(PLACE_ORDER_SCHEMA, args);
        const after = validator.validate(PLACE_ORDER_SCHEMA, normalizeArguments(PLACE_ORDER_SCHEMA, args).arguments);
        const count = (r: typeof before) => (r.ok ? 0 : r.issues.length);
        assert.ok(count(after) <= count(before), `${count(before)} → ${count(after)} for ${JSON.stringify(args)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws and never mutates its input, for any JSON arguments', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...VALID.map(([, schema]) => schema)),
        plain(fc.dictionary(fc.string(), json)),
        (schema, args) => {
          const copy = structuredClone(args);
          normalizeArguments(schema, args);
          validator.validate(schema, args);
          assert.deepEqual(args, copy);
        },
      ),
    );
  });

  it('never yields a number out of range, and never throws on arguments deeper than any stack', () => {
    const WANTS = {
      type: 'object',
      properties: {
        n: { type: 'number' },
        i: { type: 'integer' },
        o: { type: 'object' },
        a: { type: 'array', items: { type: 'number' } },
        s: { type: 'string' },
      },
    };
    const hugeNumber = fc
      .tuple(fc.constantFrom('', '-', '+'), fc.integer({ min: 309, max: 100_000 }))
      .map(([sign, exponent]) => `${sign}1e${exponent}`);
    const hostileString = fc.oneof(
      hugeNumber,
      fc.integer({ min: 309, max: 2_000 }).map((n) => '9'.repeat(n)),
      hugeNumber.map((n) => `{"k": ${n}}`),
      hugeNumber.map((n) => `[1, ${n}]`),
    );
    const deepValue = fc.tuple(fc.integer({ min: 1, max: 10_000 }), tricky).map(([depth, leaf]) => {
      let value: JsonValue = leaf;
      for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { n: value };
      return value;
    });
    const args = fc.dictionary(
      fc.constantFrom('n', 'i', 'o', 'a', 's', 'extra'),
      fc.oneof(hostileString, deepValue, tricky),
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(fc.constantFrom<JsonSchema>(WANTS, PLACE_ORDER_SCHEMA, PYDANTIC_SCHEMA), args, (schema, input) => {
        const result = normalizeArguments(schema, input);
        assert.ok(!holdsNonFinite(result.arguments));
        for (const change of result.changes)
          assert.ok(
            typeof change.to !== 'number' || Number.isFinite(change.to),
            `${change.rule} gave ${String(change.to)}`,
          );
      }),
      { numRuns: 150 },
    );
  });
});
