import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { EMPTY_POLICY } from '../gate/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { LocalToolSource } from '../tools/local/local-tool-source.ts';
import { sharedValidator } from '../validation/index.ts';
import { Gateway } from './gateway.ts';

function gateway(maxSessions: number): Gateway {
  return new Gateway({
    store: new MemoryRunStore(),
    owner: 'test',
    leaseMs: 5000,
    environment: { tools: new LocalToolSource({ name: 'none', tools: [] }), policy: EMPTY_POLICY, validator: sharedValidator() },
    listTools: () => Promise.resolve([]),
    maxResultBytes: 4096,
    maxSessions,
  });
}

const identity = { dryRun: false };
const settings = { transport: 'http' as const };

describe('Gateway sessions', () => {
  it('keeps at most gateway.maxSessions open: a new one beyond is refused with overloaded until one ends', async () => {
    const g = gateway(2);
    const a = g.session('a', identity, settings);
    g.session('b', identity, settings);
    assert.throws(
      () => g.session('c', identity, settings),
      (e: unknown) => e instanceof ToolgateError && e.code === 'overloaded' && /2 open sessions, its limit \(gateway.maxSessions\)/.test(e.message),
    );
    assert.equal(g.session('a', identity, settings), a, 'an open session is found again, not counted twice');
    await g.endSession('a', 'test');
    assert.equal(g.sessionCount, 1);
    assert.notEqual(g.session('c', identity, settings), undefined);
    await g.close('test');
    assert.equal(g.sessionCount, 0);
  });
});
