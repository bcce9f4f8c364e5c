import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LimitStore, RunStore, SlotOutcome } from '../../../src/core/index.ts';
import { oneTo, sleep, toolgateError, withStore, type RunStoreFactory } from './harness.ts';

const LONG = 60_000;
/** A slot or strike that is gone by the time it has been waited for (polled, never a fixed sleep). */
const SHORT = 60;

function take(
  limits: LimitStore,
  id: string,
  keys: Record<string, number>,
  options: { ttlMs?: number; holder?: string } = {},
): Promise<SlotOutcome> {
  return limits.takeSlot({
    id,
    limits: Object.entries(keys).map(([key, max]) => ({ key, max, ttlMs: options.ttlMs ?? LONG })),
    ...(options.holder === undefined ? {} : { holder: options.holder }),
  });
}

/** Polls `check` every 10 ms until it holds; fails naming `what` after 5 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export function limitsContract(factory: RunStoreFactory): void {
  describe('limits (slots and strikes)', () => {
    it(
      'takes slots up to the limit, then refuses naming the ' + 'full key, its live slots and when the oldest expires',
      () =>
        withStore(factory, async ({ limits }) => {
          for (const i of oneTo(3))
            assert.deepEqual(await take(limits, `s${i}`, { 'tenant/acme': 3 }, { ttlMs: 10_000 }), { taken: true });
          const refused = await take(limits, 's4', { 'tenant/acme': 3 });
          assert.equal(refused.taken, false);
          assert.ok(!refused.taken);
          assert.equal(refused.key, 'tenant/acme');
          assert.equal(refused.live, 3);
          assert.ok(
            refused.retryAfterMs > 8_000 && refused.retryAfterMs <= 10_000,
            `retryAfterMs ${refused.retryAfterMs}`,
          );
          assert.deepEqual(
            await take(limits, 's4', { 'tenant/globex': 3 }),
            { taken: true },
            'another key counts on its own',
          );
        }),
    );

    it('takes under every key of a request or under none: a full second key leaves the first untouched', () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await take(limits, 'k1', { 'key/one': 1 }), { taken: true });
        const refused = await take(limits, 'k2', { 'tenant/acme': 2, 'key/one': 1 });
        assert.equal(refused.taken, false);
        assert.equal(refused.taken === false && refused.key, 'key/one');
        assert.deepEqual(await take(limits, 'k3', { 'tenant/acme': 2 }), { taken: true });
        assert.deepEqual(
          await take(limits, 'k4', { 'tenant/acme': 2 }),
          { taken: true },
          'the refused request took nothing under tenant/acme',
        );
      }));

    it('counts an id once under a key: taking it again is no second slot', () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await take(limits, 'a', { only: 1 }), { taken: true });
        assert.deepEqual(await take(limits, 'a', { only: 1 }), { taken: true });
        assert.equal((await take(limits, 'b', { only: 1 })).taken, false);
      }));

    it('refuses at once under a limit of 0', () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await take(limits, 'a', { none: 0 }), { taken: false, key: 'none', live: 0, retryAfterMs: 0 });
      }));

    it('releases a slot under every key; releasing an unknown id is no error', () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await take(limits, 'a', { x: 1, y: 1 }), { taken: true });
        assert.equal((await take(limits, 'b', { y: 1 })).taken, false);
        await limits.releaseSlot('a');
        await limits.releaseSlot('never-taken');
        assert.deepEqual(await take(limits, 'b', { x: 1, y: 1 }), { taken: true });
      }));

    it('frees the place of a slot once its ttl has passed', () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await take(limits, 'short', { window: 1 }, { ttlMs: SHORT }), { taken: true });
        assert.equal((await take(limits, 'next', { window: 1 })).taken, false);
        await until('the short slot to expire', async () => (await take(limits, 'next', { window: 1 })).taken);
      }));

    it("renews a holder's live slots and only those; resolves how many", () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await take(limits, 'held', { sessions: 2 }, { ttlMs: 400, holder: 'gateway-a' }), {
          taken: true,
        });
        assert.deepEqual(await take(limits, 'other', { sessions: 2 }, { ttlMs: 400, holder: 'gateway-b' }), {
          taken: true,
        });
        assert.equal(await limits.renewSlots({ holder: 'gateway-a', ttlMs: LONG }), 1);
        await until("gateway-b's slot to expire", async () => (await take(limits, 'third', { sessions: 2 })).taken);
        assert.equal(
          (await take(limits, 'fourth', { sessions: 2 })).taken,
          false,
          "gateway-a's renewed slot is still live",
        );
        assert.equal(await limits.renewSlots({ holder: 'nobody', ttlMs: LONG }), 0);
      }));

    it('never fills the last place twice when takes race', () =>
      withStore(factory, async ({ limits }) => {
        const outcomes = await Promise.all(oneTo(20).map((i) => take(limits, `r${i}`, { race: 5 })));
        assert.equal(outcomes.filter((o) => o.taken).length, 5);
      }));

    it('counts strikes per key and reads those that are not forgotten', () =>
      withStore(factory, async ({ limits }) => {
        assert.deepEqual(await limits.readStrikes(['address/a']), {});
        for (const n of oneTo(3))
          assert.equal((await limits.addStrike({ key: 'address/a', forgetAfterMs: LONG })).count, n);
        await limits.addStrike({ key: 'prefix/p', forgetAfterMs: LONG });
        const read = await limits.readStrikes(['address/a', 'prefix/p', 'address/unknown']);
        assert.deepEqual(Object.keys(read).sort(), ['address/a', 'prefix/p']);
        assert.equal(read['address/a']?.count, 3);
        assert.equal(read['prefix/p']?.count, 1);
        assert.ok((read['address/a']?.sinceLastMs ?? -1) >= 0 && (read['address/a']?.sinceLastMs ?? LONG) < 5_000);
      }));

    it('counts every one of racing strikes', () =>
      withStore(factory, async ({ limits }) => {
        await Promise.all(oneTo(20).map(() => limits.addStrike({ key: 'address/b', forgetAfterMs: LONG })));
        assert.equal((await limits.readStrikes(['address/b']))['address/b']?.count, 20);
      }));

    it('forgets a count once forgetAfterMs has passed since its last strike: it starts again at 1', () =>
      withStore(factory, async ({ limits }) => {
        await limits.addStrike({ key: 'address/c', forgetAfterMs: SHORT });
        await limits.addStrike({ key: 'address/c', forgetAfterMs: SHORT });
        await until(
          'the strikes to be forgotten',
          async () => (await limits.readStrikes(['address/c']))['address/c'] === undefined,
        );
        assert.equal((await limits.addStrike({ key: 'address/c', forgetAfterMs: LONG })).count, 1);
      }));

    it('refuses requests no caller should send, writing nothing', () =>
      withStore(factory, async ({ limits }) => {
        await assert.rejects(
          limits.takeSlot({ id: '', limits: [{ key: 'k', max: 1, ttlMs: LONG }] }),
          toolgateError('usage'),
        );
        await assert.rejects(
          limits.takeSlot({ id: 'a', limits: [{ key: 'k', max: -1, ttlMs: LONG }] }),
          toolgateError('usage'),
        );
        await assert.rejects(
          limits.takeSlot({ id: 'a', limits: [{ key: 'k', max: 1, ttlMs: 0 }] }),
          toolgateError('usage'),
        );
        await assert.rejects(limits.addStrike({ key: 'k', forgetAfterMs: Number.NaN }), toolgateError('usage'));
        assert.deepEqual(await take(limits, 'a', { k: 1 }), { taken: true });
      }));

    it('shares counts with a second store on the same storage (another process)', async (t) => {
      const harness = await factory();
      try {
        if (harness.reopen === undefined) {
          t.skip('this store keeps its counts in one process');
          return;
        }
        const other: RunStore = await harness.reopen();
        assert.deepEqual(await take(harness.store.limits, 'a', { shared: 2 }), { taken: true });
        assert.deepEqual(await take(other.limits, 'b', { shared: 2 }), { taken: true });
        assert.equal((await take(harness.store.limits, 'c', { shared: 2 })).taken, false);
        const outcomes = await Promise.all(
          oneTo(10).map((i) => take(i % 2 === 0 ? harness.store.limits : other.limits, `r${i}`, { raced: 3 })),
        );
        assert.equal(outcomes.filter((o) => o.taken).length, 3, 'two stores racing never fill the last place twice');
        await harness.store.limits.addStrike({ key: 'address/d', forgetAfterMs: LONG });
        await other.limits.addStrike({ key: 'address/d', forgetAfterMs: LONG });
        assert.equal((await harness.store.limits.readStrikes(['address/d']))['address/d']?.count, 2);
      } finally {
        await harness.cleanup();
      }
    });
  });
}
