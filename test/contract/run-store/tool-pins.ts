import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { ToolPin } from '../../../src/core/index.ts';
import { withStore, type RunStoreFactory } from './harness.ts';

/**
 * A pin as the gateway writes it; the definition holds what stores must keep exactly (escaped keys, NUL, non-ASCII).
 */
function pin(overrides: Partial<ToolPin> = {}): ToolPin {
  return {
    server: 'crm',
    tool: 'list_orders',
    fingerprint: 'a'.repeat(64),
    definition: {
      name: 'list_orders',
      description: 'Lists orders — für Kunden.\u0000',
      inputSchema: {
        type: 'object',
        properties: { limit: { type: 'integer' }, '\n': { type: 'string' } },
        required: ['limit'],
      },
      annotations: { readOnlyHint: true },
    },
    pinnedAt: '2025-01-02T03:04:05.000Z',
    acceptedBy: 'first-seen',
    ...overrides,
  };
}

export function toolPinsContract(factory: RunStoreFactory): void {
  describe('tool pins', () => {
    it('has no pins in a new store', () =>
      withStore(factory, async (store) => {
        assert.deepEqual(await store.listToolPins(), []);
      }));

    it('pinToolIfNew stores a pin and resolves with it, exactly as written', () =>
      withStore(factory, async (store) => {
        const first = pin();
        assert.deepEqual(await store.pinToolIfNew(first), first);
        assert.deepEqual(await store.listToolPins(), [first]);
      }));

    it('keeps the first pin of a tool: a second pinToolIfNew resolves with it, unchanged', () =>
      withStore(factory, async (store) => {
        const first = pin();
        await store.pinToolIfNew(first);
        const second = pin({
          fingerprint: 'b'.repeat(64),
          definition: { name: 'list_orders', description: 'changed' },
          pinnedAt: '2025-02-02T00:00:00.000Z',
        });
        assert.deepEqual(await store.pinToolIfNew(second), first);
        assert.deepEqual(await store.listToolPins(), [first]);
      }));

    it('keys pins by (server, tool) and lists them by server, then tool', () =>
      withStore(factory, async (store) => {
        const pins = [
          pin({ server: 'b', tool: 'x' }),
          pin({ server: 'a', tool: 'y' }),
          pin({ server: 'a', tool: 'x' }),
          pin({ server: 'ab', tool: 'a' }),
        ];
        for (const p of pins) assert.deepEqual(await store.pinToolIfNew(p), p);
        assert.deepEqual(
          (await store.listToolPins()).map((p) => `${p.server}/${p.tool}`),
          ['a/x', 'a/y', 'ab/a', 'b/x'],
        );
      }));

    it('replaceToolPin replaces a pin, and creates one where there was none', () =>
      withStore(factory, async (store) => {
        await store.pinToolIfNew(pin());
        const accepted = pin({
          fingerprint: 'c'.repeat(64),
          definition: { name: 'list_orders', description: 'accepted' },
          pinnedAt: '2025-03-03T00:00:00.000Z',
          acceptedBy: 'alice',
        });
        await store.replaceToolPin(accepted);
        const created = pin({ server: 'erp', acceptedBy: 'bob' });
        await store.replaceToolPin(created);
        assert.deepEqual(await store.listToolPins(), [accepted, created]);
        assert.deepEqual(await store.pinToolIfNew(pin()), accepted);
      }));

    it('returns copies: changing a returned pin changes nothing stored', () =>
      withStore(factory, async (store) => {
        const written = pin();
        const returned = await store.pinToolIfNew(written);
        returned.definition['description'] = 'mutated';
        written.fingerprint = 'mutated';
        const [listed] = await store.listToolPins();
        assert.equal(listed?.definition['description'], pin().definition['description']);
        assert.equal(listed?.fingerprint, pin().fingerprint);
      }));

    it('agrees on one winner when two pinToolIfNew with different fingerprints race', () =>
      withStore(factory, async (store) => {
        const a = pin({ fingerprint: 'a'.repeat(64), acceptedBy: 'first-seen' });
        const b = pin({ fingerprint: 'b'.repeat(64), definition: { name: 'list_orders', description: 'other' } });
        const [ra, rb] = await Promise.all([store.pinToolIfNew(a), store.pinToolIfNew(b)]);
        assert.deepEqual(ra, rb);
        assert.ok([a.fingerprint, b.fingerprint].includes(ra.fingerprint));
        assert.deepEqual(await store.listToolPins(), [ra]);
      }));

    it('keeps pins across close and reopen', (t: TestContext) =>
      withStore(factory, async (store, harness) => {
        if (harness.reopen === undefined) {
          t.skip('this store cannot be reopened');
          return;
        }
        const first = pin();
        const accepted = pin({ server: 'erp', fingerprint: 'd'.repeat(64), acceptedBy: 'alice' });
        await store.pinToolIfNew(first);
        await store.replaceToolPin(accepted);
        await store.close();
        const again = await harness.reopen();
        try {
          assert.deepEqual(await again.listToolPins(), [first, accepted]);
          assert.deepEqual(await again.pinToolIfNew(pin({ fingerprint: 'e'.repeat(64) })), first);
        } finally {
          await again.close();
        }
      }));

    it('agrees on one winner across two stores on the same storage', (t: TestContext) =>
      withStore(factory, async (store, harness) => {
        if (harness.reopen === undefined) {
          t.skip('this store cannot be opened twice');
          return;
        }
        const other = await harness.reopen();
        try {
          const racers = Array.from({ length: 10 }, (_, i) => pin({ fingerprint: String(i).repeat(64) }));
          const results = await Promise.all(racers.map((p, i) => (i % 2 === 0 ? store : other).pinToolIfNew(p)));
          assert.equal(new Set(results.map((r) => r.fingerprint)).size, 1);
          assert.deepEqual(await other.listToolPins(), [results[0]]);
          assert.deepEqual(await store.listToolPins(), [results[0]]);
        } finally {
          await other.close();
        }
      }));
  });
}
