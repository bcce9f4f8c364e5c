import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileCel } from './cel-expression.ts';
import { conditionInput } from './condition-input.ts';

const SENIOR_ONLY = '!("senior" in user.roles) && args.qty > 100';

describe('conditionInput: user.roles', () => {
  it("gives conditions the caller's roles, [] for a user without any, and null without user or roles", () => {
    const args = { qty: 500 };
    assert.deepEqual(conditionInput({ args, tool: 't', caller: { user: { id: 'u', roles: ['senior'] } } }).user, {
      id: 'u',
      roles: ['senior'],
    });
    assert.deepEqual(conditionInput({ args, tool: 't', caller: { user: { id: 'u' } } }).user, { id: 'u', roles: [] });
    assert.equal(conditionInput({ args, tool: 't', caller: {} }).user, null);
  });

  it('lets a CEL condition read user.roles', () => {
    const compiled = compileCel(SENIOR_ONLY);
    assert.ok(compiled.ok);
    const run = (roles: string[] | undefined, qty: number) =>
      compiled.program(
        conditionInput({
          args: { qty },
          tool: 'placeOrder',
          caller: { user: roles === undefined ? { id: 'u' } : { roles } },
        }),
      );
    assert.deepEqual(run(['junior'], 500), { matched: true });
    assert.deepEqual(run(['senior', 'junior'], 500), { matched: false });
    assert.deepEqual(run(undefined, 500), { matched: true }, 'a user without roles holds none');
    assert.deepEqual(run(['junior'], 50), { matched: false });
  });
});
