// Properties of the validator on hostile values: it never throws, whatever the
// depth, size or numbers of the value, and a non-finite number never passes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonSchema, JsonValue } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import { createValidator } from './create-validator.ts';
import { ISSUE_CODES } from './issues.ts';
import {
  DEFINITIONS_SCHEMA,
  DISCRIMINATED_SCHEMA,
  EDIT_FILE_SCHEMA,
  PLACE_ORDER_SCHEMA,
  PYDANTIC_SCHEMA,
} from '../../test/support/test-schemas.ts';

// A small size limit keeps each run fast; the default is exercised in create-validator.test.ts.
const LIMITS = { maxNodes: 2_000 };
const validator = createValidator(LIMITS);
const SCHEMAS: JsonSchema[] = [
  {},
  { type: 'object' },
  { type: 'array' },
  { type: 'number' },
  PLACE_ORDER_SCHEMA,
  PYDANTIC_SCHEMA,
  DEFINITIONS_SCHEMA,
  EDIT_FILE_SCHEMA,
  DISCRIMINATED_SCHEMA,
];
const NON_FINITE = [Infinity, -Infinity, Number.NaN];

/** Wraps `leaf` in `depth` arrays or objects (built in a loop: the value is deeper than any stack). */
function nest(leaf: JsonValue, depth: number, keys: readonly string[]): JsonValue {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) {
    const key = keys[i % keys.length];
    value = key === undefined || key === '' ? [value] : { [key]: value };
  }
  return value;
}

const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  fc.constantFrom(...NON_FINITE),
  fc.double(),
);
const deep = fc
  .tuple(
    leaf,
    fc.integer({ min: 0, max: 5_000 }),
    fc.array(fc.option(fc.constantFrom('qty', 'a', 'lines', '__proto__'), { nil: undefined }), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([value, depth, keys]) =>
    nest(
      value,
      depth,
      keys.map((k) => k ?? ''),
    ),
  );
const wide = fc.integer({ min: 1_900, max: 2_100 }).map((n) => ({ xs: new Array<number>(n).fill(1) }) as JsonValue);
const anyValue = fc.oneof(deep, leaf, wide, fc.anything() as fc.Arbitrary<JsonValue>);

describe('createValidator properties', () => {
  it('never throws, and every value past the shape limits is refused with the matching code', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SCHEMAS), anyValue, (schema, value) => {
        const result = validator.validate(schema, value);
        if (!result.ok)
          for (const issue of result.issues)
            assert.ok((ISSUE_CODES as readonly string[]).includes(issue.code), issue.code);
        const problem = checkJsonShape(value, LIMITS);
        if (problem !== undefined) {
          assert.equal(result.ok, false);
          if (!result.ok)
            assert.deepEqual(
              result.issues.map((i) => [i.code, i.path]),
              [[problem.code, problem.path]],
            );
        }
      }),
      { numRuns: 150 },
    );
  });

  it('always refuses a non-finite number, wherever it sits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCHEMAS),
        fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
        fc.constantFrom(...NON_FINITE),
        fc.nat(),
        (schema, value, bad, where) => {
          const holder = [value, bad, value];
          const candidates: JsonValue[] = [bad, holder, { qty: bad }, { data: holder }, { lines: [{ quantity: bad }] }];
          const result = validator.validate(schema, candidates[where % candidates.length] as JsonValue);
          assert.equal(result.ok, false);
          if (!result.ok)
            assert.deepEqual(
              result.issues.map((i) => i.code),
              ['not_finite'],
            );
        },
      ),
      { numRuns: 200 },
    );
  });
});
