import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/errors.ts';
import type { RunInput } from '../core/events.ts';
import type { Run } from '../core/runs.ts';
import type { ToolSpec } from '../core/tools.ts';
import { sharedValidator } from '../validation/index.ts';
import { checkApprovalEdit } from './check-approval-edit.ts';

const ORDER: ToolSpec = {
  name: 'placeOrder',
  description: 'place an order',
  origin: { kind: 'mcp', server: 'power-exchange', tool: 'placeOrder' },
  inputSchema: {
    type: 'object',
    properties: {
      userId: { type: 'string' },
      side: { type: 'string', enum: ['BUY', 'SELL'] },
      qty: { type: 'number', exclusiveMinimum: 0 },
    },
    required: ['userId', 'side', 'qty'],
    additionalProperties: false,
  },
};
const POLICY = { tools: { placeOrder: { inject: { userId: '{{user.id}}' } } }, tenants: {} };
const RUN = {
  id: 'run_1',
  status: 'waiting_approval',
  pendingApproval: {
    toolCallId: 'call_1',
    name: 'placeOrder',
    arguments: { userId: 'alice', side: 'BUY', qty: 1 },
    effect: 'write',
    reason: 'policy',
    eventId: 8,
  },
} as unknown as Run;

function check(args: Record<string, unknown>, toolCallId = 'call_1'): void {
  const input = { type: 'approval', toolCallId, decision: 'edit', arguments: args } as RunInput;
  checkApprovalEdit({ run: RUN, input, tools: [ORDER], policy: POLICY, validator: sharedValidator() });
}

describe('checkApprovalEdit', () => {
  it('accepts an edit the gate would run, without the injected key and with values it normalises', () => {
    check({ side: 'SELL', qty: 2 });
    check({ side: 'buy', qty: '2' });
    // Whatever the page sends for an injected key is replaced by the server: not a reason to refuse.
    check({ side: 'SELL', qty: 2, userId: 'mallory' });
  });

  it('refuses an edit that cannot run, naming each problem and saying the call still waits', () => {
    assert.throws(
      () => check({ side: 'HOLD', qty: -1, extra: 1 }),
      (error: unknown) => {
        assert.ok(error instanceof ToolgateError);
        assert.equal(error.code, 'usage');
        assert.match(error.message, /side: .*BUY/);
        assert.match(error.message, /qty: /);
        assert.match(error.message, /extra/);
        assert.match(error.message, /call_1 still waits/);
        return true;
      },
    );
  });

  it('leaves decisions that do not apply to the engine (another call, not an edit)', () => {
    check({ side: 'HOLD' }, 'call_other');
    checkApprovalEdit({
      run: RUN,
      input: { type: 'approval', toolCallId: 'call_1', decision: 'approve' },
      tools: [ORDER],
      policy: POLICY,
      validator: sharedValidator(),
    });
  });
});
