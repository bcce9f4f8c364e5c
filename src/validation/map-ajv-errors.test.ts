// Issue mapping for anyOf/oneOf, through the validator (the mapper's only caller).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonSchema } from '../core/json.ts';
import { createValidator } from './create-validator.ts';
import type { ValidationIssue } from './issues.ts';
import { DEFINITIONS_SCHEMA, DISCRIMINATED_SCHEMA, PYDANTIC_SCHEMA } from '../../test/support/test-schemas.ts';

const validator = createValidator();

function issues(schema: JsonSchema, value: object): ValidationIssue[] {
  const result = validator.validate(schema, value as never);
  assert.equal(result.ok, false, 'expected the value to be invalid');
  return result.ok ? [] : result.issues;
}

describe('anyOf/oneOf issue mapping', () => {
  it('turns a failed nullable union into one type issue', () => {
    assert.deepEqual(
      issues(PYDANTIC_SCHEMA, {
        customerId: 'c',
        currency: 'EUR',
        lines: [{ description: 'd', quantity: 1, unitPrice: 1 }],
        dueDays: 'soon',
      }),
      [
        {
          code: 'type',
          path: '/dueDays',
          message: 'must be integer or null',
          expected: 'integer or null',
          received: 'soon',
        },
      ],
    );
  });

  it('reports the errors of the one branch whose shape fits, even through a $ref', () => {
    const found = issues(DEFINITIONS_SCHEMA, { name: 'n', address: { street: 's' } });
    assert.deepEqual(found, [
      {
        code: 'required',
        path: '/address/zip',
        message: 'is required but missing',
        expected: 'string (matching /^[0-9]{5}$/)',
      },
    ]);
  });

  it('reports the branch constraint when the value has the right type but breaks it', () => {
    const found = issues(PYDANTIC_SCHEMA, {
      customerId: 'c',
      currency: 'EUR',
      lines: [{ description: 'd', quantity: 1, unitPrice: 1 }],
      note: 'x'.repeat(201),
    });
    assert.deepEqual(
      found.map((i) => `${i.code}@${i.path}`),
      ['max_length@/note'],
    );
  });

  it('picks the discriminated branch whose const matched', () => {
    const found = issues(DISCRIMINATED_SCHEMA, { target: { kind: 'group', size: 0 } });
    assert.deepEqual(
      found.map((i) => `${i.code}@${i.path}`),
      ['minimum@/target/size'],
    );
  });

  it('gives one one_of issue when no branch is a clear fit', () => {
    const found = issues(DISCRIMINATED_SCHEMA, { target: { kind: 'team' } });
    assert.equal(found.length, 1);
    assert.equal(found[0]?.code, 'one_of');
    assert.equal(found[0]?.path, '/target');
    assert.equal(
      found[0]?.expected,
      'object {kind: exactly "user", userId: string} or object {kind: exactly "group", size: integer >= 1}',
    );
  });

  it('says when a oneOf value matches more than one branch', () => {
    const schema = { type: 'object', properties: { v: { oneOf: [{ type: 'number' }, { type: 'integer' }] } } };
    const found = issues(schema, { v: 3 });
    assert.equal(found.length, 1);
    assert.equal(found[0]?.code, 'one_of');
    assert.match(found[0]?.message ?? '', /more than one/);
  });

  it('collapses a union of enums into one enum issue', () => {
    const schema = { type: 'object', properties: { unit: { anyOf: [{ enum: ['MWh', 'kWh'] }, { const: 'GWh' }] } } };
    assert.deepEqual(issues(schema, { unit: 'J' }), [
      {
        code: 'enum',
        path: '/unit',
        message: 'must be one of "MWh", "kWh" or exactly "GWh"',
        expected: 'one of "MWh", "kWh" or exactly "GWh"',
        received: 'J',
      },
    ]);
  });

  it('keeps sibling keyword errors next to a union', () => {
    const schema = {
      type: 'object',
      properties: { s: { minLength: 3, anyOf: [{ type: 'string', pattern: '^a' }, { type: 'null' }] } },
    };
    const found = issues(schema, { s: 'b' });
    assert.deepEqual(found.map((i) => i.code).sort(), ['min_length', 'pattern']);
  });

  it('handles a union at the root and nested unions', () => {
    const schema = {
      anyOf: [
        { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['a'] },
        { type: 'string' },
      ],
    };
    assert.deepEqual(issues(schema, { a: 5 }), [
      { code: 'type', path: '/a', message: 'must be string or null', expected: 'string or null', received: 5 },
    ]);
  });

  it('drops if/then noise and keeps the then errors', () => {
    const schema = {
      type: 'object',
      properties: { mode: { type: 'string' }, limit: { type: 'number' } },
      if: { properties: { mode: { const: 'limit' } } },
      then: { required: ['limit'] },
    };
    assert.deepEqual(
      issues(schema, { mode: 'limit' }).map((i) => `${i.code}@${i.path}`),
      ['required@/limit'],
    );
  });
});
