import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLACE_ORDER_SCHEMA } from '../../test/support/test-schemas.ts';
import type { ToolSpec } from '../core/tools.ts';
import { sharedValidator } from '../validation/index.ts';
import { approvalView } from './approval-view.ts';
import { createRedactor, REDACTED } from './create-redactor.ts';

const PLACE_ORDER: ToolSpec = {
  name: 'placeOrder',
  description: 'Places a limit order.',
  inputSchema: PLACE_ORDER_SCHEMA,
  origin: { kind: 'mcp', server: 'power-exchange', tool: 'placeOrder' },
};
const view = approvalView({ tool: PLACE_ORDER, inject: { userId: '{{user.id}}' } });

describe('approvalView', () => {
  it('shows the arguments the call would run with, injected values included, redacted', () => {
    const args = { userId: 'alice', side: 'BUY', price: 10, qty: 1, symbol: 'X' };
    assert.deepEqual(view.shown(args, createRedactor()), args);
    assert.deepEqual(view.shown(args, createRedactor(['userId'])), { ...args, userId: REDACTED });
    // A copy: what a person is shown is not the object the call runs with.
    assert.notEqual(view.shown(args, createRedactor()), args);
  });

  it('shows nothing rather than a redactor that does not keep an object an object', () => {
    assert.deepEqual(
      view.shown({ side: 'BUY' }, () => 'oops'),
      {},
    );
  });

  it('holds an edit to the schema without the injected arguments', () => {
    assert.deepEqual(Object.keys(view.editSchema['properties'] as object), ['side', 'price', 'qty', 'symbol']);
    assert.deepEqual(view.editSchema['required'], ['side', 'price', 'qty']);
  });

  it(
    'accepts an edit the gate would run: without the injected key, ' +
      'with values it normalises, or with the key (the server replaces it)',
    () => {
      const validator = sharedValidator();
      assert.deepEqual(view.checkEdit({ side: 'SELL', price: 5, qty: 2 }, validator), []);
      assert.deepEqual(view.checkEdit({ side: 'buy', price: '5', qty: '2' }, validator), []);
      assert.deepEqual(view.checkEdit({ side: 'SELL', price: 5, qty: 2, userId: 7 }, validator), []);
    },
  );

  it('names what keeps an edit from running', () => {
    const issues = view.checkEdit({ side: 'HOLD', price: 5, qty: -1, extra: 1 }, sharedValidator());
    const paths = issues.map((i) => i.path);
    assert.ok(paths.includes('/side'), JSON.stringify(issues));
    assert.ok(paths.includes('/qty'), JSON.stringify(issues));
    assert.ok(
      issues.some((i) => i.message.includes('extra') || i.path === '/extra'),
      JSON.stringify(issues),
    );
  });

  it('a tool without injected arguments: the edit is held to its whole schema', () => {
    const plain = approvalView({ tool: PLACE_ORDER, inject: {} });
    assert.deepEqual(plain.editSchema, PLACE_ORDER_SCHEMA);
    assert.ok(
      plain
        .checkEdit({ side: 'SELL', price: 5, qty: 2 }, sharedValidator())
        .some((i) => i.message.includes('userId') || i.path === '/userId'),
    );
  });
});
