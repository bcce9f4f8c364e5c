import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type RunStore } from '../core/index.ts';
import { EMPTY_POLICY } from '../gate/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { LocalToolSource } from '../tools/local/local-tool-source.ts';
import { sharedValidator } from '../validation/index.ts';
import { Gateway, type GatewayOptions } from './gateway.ts';
import { defaultMaxSessionsPerKey, defaultMaxSessionsPerTenant } from './session-shares.ts';

function gateway(maxSessions: number, options: Partial<GatewayOptions> & { store?: RunStore } = {}): Gateway {
  return new Gateway({
    store: new MemoryRunStore(),
    owner: 'test',
    leaseMs: 5000,
    environment: {
      tools: new LocalToolSource({ name: 'none', tools: [] }),
      policy: EMPTY_POLICY,
      validator: sharedValidator(),
    },
    listTools: () => Promise.resolve([]),
    maxResultBytes: 4096,
    maxSessions,
    ...options,
  });
}

const identity = { dryRun: false };
const settings = { transport: 'http' as const };

function refused(pattern: RegExp): (e: unknown) => true {
  return (e: unknown) => {
    assert.ok(e instanceof ToolgateError, String(e));
    assert.equal(e.code, 'overloaded');
    assert.match(e.message, pattern);
    return true;
  };
}

describe('Gateway sessions', () => {
  it('keeps at most gateway.maxSessions open: a new one beyond is refused with overloaded until one ends', async () => {
    const g = gateway(2);
    const a = await g.session('a', identity, settings);
    await g.session('b', identity, settings);
    await assert.rejects(
      g.session('c', identity, settings),
      refused(/2 open sessions, its limit \(gateway.maxSessions\)/),
    );
    assert.equal(await g.session('a', identity, settings), a, 'an open session is found again, not counted twice');
    await g.endSession('a', 'test');
    assert.equal(g.sessionCount, 1);
    assert.notEqual(await g.session('c', identity, settings), undefined);
    await g.close('test');
    assert.equal(g.sessionCount, 0);
  });

  it("gives each tenant a share: one tenant's sessions never take another's place", async () => {
    const g = gateway(10, { maxSessionsPerTenant: 2 });
    const acme = { tenantId: 'acme', dryRun: false };
    await g.session('a1', acme, settings);
    await g.session('a2', acme, settings);
    await assert.rejects(
      g.session('a3', acme, settings),
      refused(
        /^tenant "acme" has 2 open gateway sessions, its share \(gateway.maxSessionsPerTenant 2\): end unused sessions/,
      ),
    );
    await g.session('g1', { tenantId: 'globex', dryRun: false }, settings);
    await g.endSession('a1', 'test');
    await g.session('a3', acme, settings);
    await g.close('test');
  });

  it('gives each API key a share of its tenant’s: the tenant’s other keys still open sessions', async () => {
    const g = gateway(10, { maxSessionsPerTenant: 3, maxSessionsPerKey: () => 1 });
    await g.session('k1-a', { tenantId: 'acme', keyId: 'k1', dryRun: false }, settings);
    await assert.rejects(
      g.session('k1-b', { tenantId: 'acme', keyId: 'k1', dryRun: false }, settings),
      refused(
        new RegExp(
          String.raw`^this API key has 1 open gateway session, its share \(gateway.maxSes` +
            String.raw`sionsPerKey 1; other keys of tenant "acme" may still open sessions\)`,
        ),
      ),
    );
    await g.session('k2-a', { tenantId: 'acme', keyId: 'k2', dryRun: false }, settings);
    await g.close('test');
  });

  it('counts the shares in the store: two gateways on one store share them', async () => {
    const store = new MemoryRunStore();
    const [one, two] = [
      gateway(10, { store, owner: 'one', maxSessionsPerTenant: 2 }),
      gateway(10, { store, owner: 'two', maxSessionsPerTenant: 2 }),
    ];
    const acme = { tenantId: 'acme', dryRun: false };
    await one.session('x', acme, settings);
    await two.session('y', acme, settings);
    await assert.rejects(one.session('z', acme, settings), refused(/gateway.maxSessionsPerTenant 2/));
    await two.close('test');
    await one.session('z', acme, settings);
    await one.close('test');
  });

  it('admits the first requests of one session, arriving together, as one session with one place', async () => {
    const g = gateway(10, { maxSessionsPerTenant: 2 });
    const acme = { tenantId: 'acme', dryRun: false };
    const [a, b] = await Promise.all([g.session('same', acme, settings), g.session('same', acme, settings)]);
    assert.equal(a, b);
    await g.session('other', acme, settings);
    assert.equal(g.sessionCount, 2);
    await g.close('test');
  });

  it(
    'default shares: the sessions divided among the tenants, at least ' +
      'a quarter each; half a tenant’s share per key when it has several',
    () => {
      assert.equal(defaultMaxSessionsPerTenant(1000, 0), 1000);
      assert.equal(defaultMaxSessionsPerTenant(1000, 1), 1000);
      assert.equal(defaultMaxSessionsPerTenant(1000, 2), 500);
      assert.equal(defaultMaxSessionsPerTenant(1000, 3), 334);
      assert.equal(defaultMaxSessionsPerTenant(1000, 50), 250);
      assert.equal(defaultMaxSessionsPerTenant(2, 50), 1);
      assert.equal(defaultMaxSessionsPerKey(250, 1), 250);
      assert.equal(defaultMaxSessionsPerKey(250, 3), 125);
      assert.equal(defaultMaxSessionsPerKey(1, 3), 1);
    },
  );
});
