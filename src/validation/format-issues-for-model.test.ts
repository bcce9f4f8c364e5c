import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, JsonSchema, JsonValue } from '../core/json.ts';
import { createValidator } from './create-validator.ts';
import { formatIssuesForModel } from './format-issues-for-model.ts';
import type { ValidationIssue } from './issues.ts';
import { PLACE_ORDER_SCHEMA, PYDANTIC_SCHEMA, WRITE_FILE_SCHEMA } from '../../test/support/test-schemas.ts';

const validator = createValidator();

function issuesFor(schema: JsonSchema, args: Record<string, unknown>): ValidationIssue[] {
  const result = validator.validate(schema, args as never);
  assert.equal(result.ok, false);
  return result.ok ? [] : result.issues;
}

describe('formatIssuesForModel', () => {
  it('names each field, what was expected and what was sent, then the required parameters', () => {
    const args = { userId: 'alice', side: 'long', price: 'cheap', extra: 1 };
    const text = formatIssuesForModel({
      toolName: 'placeOrder',
      issues: issuesFor(PLACE_ORDER_SCHEMA, args),
      arguments: args,
      schema: PLACE_ORDER_SCHEMA,
    });
    assert.equal(
      text,
      [
        'The arguments for placeOrder are invalid:',
        '- qty: missing, but required; expected number > 0.',
        '- extra: not a parameter of placeOrder; remove it.',
        '- side: must be one of "BUY", "SELL"; you sent "long".',
        '- price: must be number, not string; you sent "cheap".',
        'Required parameters of placeOrder: userId (string (at least 1 character)), ' +
          'side (one of "BUY", "SELL"), price (number > 0), qty (number > 0).',
        'Allowed parameters: userId, side, price, qty, symbol.',
        'Call placeOrder again with corrected arguments.',
      ].join('\n'),
    );
  });

  it('truncates long values and names nested fields readably', () => {
    const args = {
      customerId: 'c',
      currency: 'EUR',
      lines: [{ description: 'x'.repeat(500), quantity: 'two', unitPrice: 1 }],
    };
    const text = formatIssuesForModel({
      toolName: 'create_invoice',
      issues: issuesFor(PYDANTIC_SCHEMA, args),
      arguments: args,
      schema: PYDANTIC_SCHEMA,
    });
    assert.match(text, /^- lines\[0\]\.quantity: must be integer, not string; you sent "two"\.$/m);
    const long = formatIssuesForModel({
      toolName: 't',
      issues: [{ code: 'pattern', path: '/lines/0/description', message: 'must match the pattern /^a/' }],
      arguments: args,
      schema: PYDANTIC_SCHEMA,
    });
    const line = long.split('\n')[1] ?? '';
    assert.ok(line.length < 200, line);
    assert.match(line, /you sent "x+…\.$/);
    assert.match(
      text,
      new RegExp(
        String.raw`Required parameters of create_invoice: customerId \(string\), cu` +
          String.raw`rrency \(one of "EUR", "USD", "GBP"\), lines \(array of object \{`,
      ),
    );
  });

  it('says when a tool has no required parameters', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const text = formatIssuesForModel({
      toolName: 'search',
      issues: issuesFor(schema, { q: 1 }),
      arguments: { q: 1 },
      schema,
    });
    assert.match(text, /^search has no required parameters\.$/m);
    assert.match(text, /Call search again with corrected arguments\.$/);
  });

  it('tells the model not to retry when the schema itself is broken', () => {
    const schema = { type: 'object', properties: { a: { type: 'float' } } };
    const text = formatIssuesForModel({ toolName: 'broken', issues: issuesFor(schema, {}), arguments: {}, schema });
    assert.match(text, /cannot be called/);
    assert.match(text, /Do not call broken again/);
  });

  it('is deterministic', () => {
    const args = { path: 3 };
    const input = {
      toolName: 'write_file',
      issues: issuesFor(WRITE_FILE_SCHEMA, args),
      arguments: args,
      schema: WRITE_FILE_SCHEMA,
    };
    assert.equal(formatIssuesForModel(input), formatIssuesForModel(structuredClone(input)));
  });

  it('caps a very long issue list', () => {
    const issues: ValidationIssue[] = Array.from({ length: 30 }, (_, i) => ({
      code: 'other',
      path: `/f${i}`,
      message: 'is wrong',
    }));
    const text = formatIssuesForModel({ toolName: 't', issues, arguments: {}, schema: {} });
    assert.match(text, /…and 10 more/);
    assert.equal(text.split('\n').filter((l) => l.startsWith('- f')).length, 20);
  });

  it('explains values refused for their shape without echoing them back', () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 10_000; i += 1) deep = [deep];
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { userId: 'a', side: 'BUY', price: 1, qty: deep },
        new RegExp(
          String.raw`^- qty(\[0\])+: the value nests deeper than 64 levels; s` +
            String.raw`end a flatter value \(fewer nested lists and objects\)\.$`,
          'm',
        ),
      ],
      [
        { userId: 'a', side: 'BUY', price: 1, qty: Infinity },
        new RegExp(
          String.raw`^- qty: a number too large \(Infinity\) is not a finite number \(JSON numbers must fit a 64-b` +
            String.raw`it float\); send a number between -1\.7976931348623157e\+308 and 1\.7976931348623157e\+308\.$`,
          'm',
        ),
      ],
      [
        { userId: 'a', side: 'BUY', price: 1, qty: new Array<number>(100_001).fill(0) },
        new RegExp(
          String.raw`^- qty\/?.*: the value has more than 100000 elements; se` +
            String.raw`nd fewer values, or split the work into several calls\.$`,
          'm',
        ),
      ],
    ];
    for (const [args, line] of cases) {
      const text = formatIssuesForModel({
        toolName: 'placeOrder',
        issues: issuesFor(PLACE_ORDER_SCHEMA, args),
        arguments: args as JsonObject,
        schema: PLACE_ORDER_SCHEMA,
      });
      assert.match(text, line);
      assert.doesNotMatch(text, /you sent/);
    }
  });

  it('never throws on arguments too deep to print', () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 100_000; i += 1) deep = { a: deep };
    const issues: ValidationIssue[] = [{ code: 'type', path: '/x', message: 'must be string' }];
    const text = formatIssuesForModel({ toolName: 't', issues, arguments: { x: deep }, schema: {} });
    assert.match(text, /^- x: must be string; you sent a value nested too deeply to show\.$/m);
  });
});
