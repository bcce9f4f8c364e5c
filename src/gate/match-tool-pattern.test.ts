import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareSpecificity, matchToolPattern, toolRefOf, type ToolRef } from './match-tool-pattern.ts';
import { WRITE_FILE } from '../../test/support/test-tools.ts';

const placeOrder: ToolRef = { server: 'power-exchange', tool: 'placeOrder', exposedName: 'power-exchange_placeOrder' };

describe('matchToolPattern', () => {
  it('matches server/tool exactly and with globs', () => {
    assert.ok(matchToolPattern('power-exchange/placeOrder', placeOrder));
    assert.ok(matchToolPattern('power-exchange/*', placeOrder));
    assert.ok(matchToolPattern('power-exchange/place*', placeOrder));
    assert.ok(matchToolPattern('*/placeOrder', placeOrder));
    assert.ok(matchToolPattern('power-*/*Order', placeOrder));
    assert.ok(!matchToolPattern('power-exchange/cancelOrder', placeOrder));
    assert.ok(!matchToolPattern('filesystem/*', placeOrder));
    assert.ok(!matchToolPattern('power-exchange/placeorder', placeOrder), 'case-sensitive');
  });

  it('matches everything with * or ** alone', () => {
    assert.ok(matchToolPattern('*', placeOrder));
    assert.ok(matchToolPattern('**', placeOrder));
    assert.ok(matchToolPattern('**', { server: 's', tool: 'a/b', exposedName: 'x' }));
  });

  it('keeps * inside one segment and lets ** cross segments', () => {
    const nested: ToolRef = { server: 'git', tool: 'repo/commit', exposedName: 'git_repo_commit' };
    assert.ok(!matchToolPattern('git/*', nested));
    assert.ok(matchToolPattern('git/**', nested));
    assert.ok(matchToolPattern('git/repo/*', nested));
  });

  it('matches a bare name against the tool name on any server, and the exposed name', () => {
    assert.ok(matchToolPattern('placeOrder', placeOrder));
    assert.ok(matchToolPattern('placeOrder', { ...placeOrder, server: 'other-exchange' }));
    assert.ok(matchToolPattern('power-exchange_placeOrder', placeOrder));
    assert.ok(matchToolPattern('place*', placeOrder));
    assert.ok(!matchToolPattern('cancelOrder', placeOrder));
    assert.ok(!matchToolPattern('Order', placeOrder), 'a bare name is not a substring match');
  });

  it('treats regex characters in patterns literally', () => {
    const dotted: ToolRef = { server: 'a.b', tool: 'x+y', exposedName: 'x+y' };
    assert.ok(matchToolPattern('a.b/x+y', dotted));
    assert.ok(!matchToolPattern('a.b/x+y', { ...dotted, server: 'aXb' }));
    assert.ok(matchToolPattern('(x+y)', { ...dotted, tool: '(x+y)' }));
  });

  it('builds the reference from a ToolSpec', () => {
    assert.deepEqual(toolRefOf(WRITE_FILE), {
      server: 'filesystem',
      tool: 'write_file',
      exposedName: 'filesystem_write_file',
    });
    assert.ok(matchToolPattern('write_file', toolRefOf(WRITE_FILE)));
  });
});

describe('compareSpecificity', () => {
  it('orders the catch-all first, then globs by wildcard count, then bare exact names, then exact server/tool', () => {
    const sorted = ['power-exchange/placeOrder', '**', 'placeOrder', 'power-exchange/*', '*', 'power-*/*'].sort(
      compareSpecificity,
    );
    assert.deepEqual(sorted, ['**', '*', 'power-*/*', 'power-exchange/*', 'placeOrder', 'power-exchange/placeOrder']);
  });

  it('is a total order independent of input order', () => {
    const patterns = ['b/*', 'a/*', 'x', 'a/b', '*', 'c*'];
    assert.deepEqual([...patterns].sort(compareSpecificity), [...patterns].reverse().sort(compareSpecificity));
  });
});
