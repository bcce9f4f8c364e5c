import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileCel, type CelProgram } from './cel-expression.ts';
import type { ConditionInput } from './condition-input.ts';

const INPUT: ConditionInput = {
  args: { qty: 2000, price: 10, side: 'BUY', path: '/srv/shared/a.txt', tags: ['x', 'y'] },
  tool: 'placeOrder',
  tenant: 'acme',
  user: { id: 'alice' },
  context: { desk: 'power', limit: 5000 },
};

function program(expression: string): CelProgram {
  const compiled = compileCel(expression);
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.problem);
  return compiled.program;
}

function problem(expression: string): string {
  const compiled = compileCel(expression);
  assert.ok(!compiled.ok, `${expression} compiled`);
  return compiled.problem;
}

describe('compileCel', () => {
  it('reads args, tool, tenant, user and context; JSON numbers compare and multiply as numbers', () => {
    const cases: [string, boolean][] = [
      ['args.qty * args.price > 10000', true],
      ['args.qty * args.price > 20000', false],
      ['args.qty * args.price > 10000.0', true],
      ['args.qty == 2000', true],
      ['args.side == "BUY" && tool == "placeOrder"', true],
      ['!args.path.startsWith("/srv/shared/")', false],
      ['"y" in args.tags', true],
      ['tenant == "acme"', true],
      ['user.id == "alice"', true],
      ['context.desk == "power" && args.qty * args.price > context.limit', true],
      ['has(args.account)', false],
    ];
    for (const [expression, expected] of cases) assert.deepEqual(program(expression)(INPUT), { matched: expected });
  });

  it('an integer literal mixes with JSON numbers in arithmetic (they are doubles in CEL)', () => {
    assert.deepEqual(program('args.qty * 2 > 3999')(INPUT), { matched: true });
    assert.deepEqual(program('10000 / args.price == 1000')(INPUT), { matched: true });
    assert.deepEqual(program('args.qty - 1 + 1 == args.qty')(INPUT), { matched: true });
    assert.deepEqual(program('1 + 2 == 3')(INPUT), { matched: true }, 'integers alone stay integers');
  });

  it('a tenant or user that is absent is null', () => {
    const anonymous = { ...INPUT, tenant: null, user: null };
    assert.deepEqual(program('tenant == null && user == null')(anonymous), { matched: true });
    assert.deepEqual(program('user != null && user.id == "alice"')(anonymous), { matched: false });
  });

  it('a syntax error names the expression and the character where it goes wrong', () => {
    assert.equal(
      problem('args.qty * * 2'),
      '"args.qty * * 2" is not a valid CEL expression: Unexpected token: MULTIPLY, at character 12',
    );
    assert.match(problem('args.qty >'), /^"args\.qty >" is not a valid CEL expression: .+, at character \d+$/);
  });

  it('an unknown variable names the variables there are; a result that is never a boolean is refused', () => {
    assert.equal(
      problem('qty > 10'),
      '"qty > 10": Unknown variable: qty, at character 1 (the variables are args, tool, tenant, user, context)',
    );
    assert.equal(problem('"abc"'), '"\\"abc\\"" gives a string, not true or false');
    assert.match(problem('tool + 1'), /^"tool \+ 1": no such overload: string \+ int/);
  });

  it('an evaluation that fails is an error, never an exception: a missing key, a wrong type, a non-boolean', () => {
    assert.deepEqual(program('args.account == "x"')(INPUT), { error: 'No such key: account, at character 6' });
    assert.deepEqual(program('user.id == "a"')({ ...INPUT, user: null }), {
      error: 'No such key: id, at character 6',
    });
    const wrongType = program('args.side > 1')(INPUT);
    assert.ok('error' in wrongType && /no such overload/.test(wrongType.error), JSON.stringify(wrongType));
    assert.deepEqual(program('args.qty')(INPUT), { error: 'the expression gave a number, not true or false' });
    // Never the value: it may be a secret the audit must not show.
    assert.deepEqual(program('args.side')(INPUT), { error: 'the expression gave a string, not true or false' });
  });

  it('leaves its input unchanged', () => {
    const before = structuredClone(INPUT);
    program('args.qty * args.price > 10000 && context.limit > 1')(INPUT);
    assert.deepEqual(INPUT, before);
  });
});
