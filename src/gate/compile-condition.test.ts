import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPolicyConditions, compiledWhen } from './compile-condition.ts';
import type { ConditionInput } from './condition-input.ts';
import type { ConditionalRule } from './policy.ts';

const INPUT: ConditionInput = {
  args: { path: '/srv/shared/a.txt', content: 'hi' },
  tool: 'write_file',
  tenant: 'acme',
  user: { id: 'alice' },
  context: { desk: 'power' },
};

const OUTSIDE_SHARED: ConditionalRule = {
  when: {
    args: { properties: { path: { not: { pattern: '^/srv/shared/' } } }, required: ['path'] },
  },
  deny: 'only /srv/shared/ may be touched',
};

describe('compiledWhen', () => {
  it('a JSON-Schema condition matches when every part given matches its schema', () => {
    const when = compiledWhen(OUTSIDE_SHARED);
    assert.equal(when.problem, undefined);
    assert.deepEqual(when.test(INPUT), { matched: false });
    assert.deepEqual(when.test({ ...INPUT, args: { path: '/etc/passwd' } }), { matched: true });
    assert.deepEqual(when.test({ ...INPUT, args: {} }), { matched: false }, 'no path: the schema requires one');

    const both = compiledWhen({
      when: { args: { required: ['path'] }, tenant: { const: 'acme' }, user: { type: 'object', required: ['id'] } },
      approval: 'required',
    });
    assert.deepEqual(both.test(INPUT), { matched: true });
    assert.deepEqual(both.test({ ...INPUT, tenant: 'globex' }), { matched: false });
    assert.deepEqual(both.test({ ...INPUT, user: null }), { matched: false }, 'no user: null is not an object');
    const loose = compiledWhen({ when: { user: { required: ['id'] } }, deny: 'x' });
    assert.deepEqual(loose.test({ ...INPUT, user: null }), { matched: true }, 'JSON Schema: `required` passes null');
    const context = compiledWhen({ when: { context: { properties: { desk: { const: 'gas' } } } }, deny: 'gas only' });
    assert.deepEqual(context.test(INPUT), { matched: false });
    assert.deepEqual(context.test({ ...INPUT, context: { desk: 'gas' } }), { matched: true });
  });

  it('records a JSON-Schema condition as its canonical JSON, an expression as written', () => {
    const a = compiledWhen({ when: { args: { required: ['b'], type: 'object' } }, deny: 'x' });
    const b = compiledWhen({ when: { args: { type: 'object', required: ['b'] } }, deny: 'x' });
    assert.equal(a.text, '{"args":{"required":["b"],"type":"object"}}');
    assert.equal(a.text, b.text, 'key order does not matter');
    assert.equal(compiledWhen({ when: 'args.qty  >  1', deny: 'x' }).text, 'args.qty  >  1');
  });

  it('compiles each rule object once', () => {
    const rule: ConditionalRule = { when: 'args.qty > 1', approval: 'required' };
    assert.equal(compiledWhen(rule), compiledWhen(rule));
  });

  it('a condition that cannot be used says why, and fails on every call', () => {
    const badSchema = compiledWhen({ when: { args: { type: 'strnig' } }, deny: 'x' });
    assert.match(badSchema.problem ?? '', /^args is not a usable JSON Schema: .*type/);
    assert.doesNotMatch(badSchema.problem ?? '', /input schema/, "not worded as a tool's schema");
    assert.deepEqual(badSchema.test(INPUT), { error: badSchema.problem });
    const badPattern = compiledWhen({ when: { args: { properties: { path: { pattern: '([' } } } }, deny: 'x' });
    assert.match(badPattern.problem ?? '', /^args is not a usable JSON Schema: .*(regular expression|pattern)/i);
    // A policy written in plain JavaScript is not checked by the types.
    const misspelt: Record<string, object> = { argz: {} };
    assert.equal(
      compiledWhen({ when: misspelt, deny: 'x' }).problem,
      '"argz" is not a part a condition can check; use args, tenant, user, context',
    );
    assert.equal(
      compiledWhen({ when: {}, deny: 'x' }).problem,
      'names none of args, tenant, user, context: it would match every call',
    );
    assert.match(compiledWhen({ when: 'args.qty >', deny: 'x' }).problem ?? '', /is not a valid CEL expression/);
  });
});

describe('checkPolicyConditions', () => {
  it('lists every condition that cannot be used by its key path', () => {
    const problems = checkPolicyConditions({
      tools: {
        'power-exchange/placeOrder': {
          conditions: [
            { when: 'args.qty * args.price > 10000', approval: 'required' },
            { when: 'args.qty * * 2', approval: 'required' },
          ],
        },
        'fs/*': { conditions: [OUTSIDE_SHARED, { when: { args: { minimum: 'one' } }, deny: 'x' }] },
        echo: { conditions: [{ when: 'true' }] },
        plain: {},
      },
    });
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.equal(
      problems[0],
      'tools.power-exchange/placeOrder.conditions.1.when: "args.qty * * 2" is not a valid CEL ' +
        'expression: Unexpected token: MULTIPLY, at character 12',
    );
    assert.match(problems[1] ?? '', /^tools\.fs\/\*\.conditions\.1\.when: args is not a usable JSON Schema: /);
    assert.equal(
      problems[2],
      'tools.echo.conditions.0: a condition sets "approval" (required, auto or never), "deny" (a reason), or both',
    );
  });
});
