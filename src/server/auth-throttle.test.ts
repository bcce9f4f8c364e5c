import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { ToolgateError, type LimitStore } from '../core/index.ts';
import { MemoryLimits } from '../store/memory/memory-limits.ts';
import { AuthThrottle, type AuthThrottleEvent } from './auth-throttle.ts';

const T0 = 1_700_000_000_000;

function request(address: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress: address }, headers } as unknown as IncomingMessage;
}

function throttle(options: { freeFailures?: number; limits?: LimitStore } = {}) {
  const clock = { now: T0 };
  const events: AuthThrottleEvent[] = [];
  const errors: string[] = [];
  const t = new AuthThrottle({
    limits: options.limits ?? new MemoryLimits({ now: () => clock.now }),
    freeFailures: options.freeFailures ?? 2,
    baseDelayMs: 1000,
    maxDelayMs: 8000,
    forgetAfterMs: 60_000,
    now: () => clock.now,
    onEvent: (e) => events.push(e),
    onError: (m) => errors.push(m),
  });
  return { t, clock, events, errors };
}

function waitOf(error: unknown): number {
  assert.ok(error instanceof ToolgateError, String(error));
  assert.equal(error.code, 'rate_limited');
  const seconds = error.details?.['retryAfterSeconds'];
  assert.equal(typeof seconds, 'number');
  return Number(seconds);
}

describe('AuthThrottle', () => {
  it(
    'lets the free failures through, then makes the address ' +
      'wait, doubling with each further failure up to the maximum',
    async () => {
      const { t, clock, events } = throttle();
      const from = request('10.0.0.1');
      const waits: number[] = [];
      for (let i = 0; i < 7; i++) {
        await t.admit(from, `wrong-key-${i}`);
        const refusal = await t.failed(from, `wrong-key-${i}`, 'bearer');
        if (refusal === undefined) continue;
        const wait = waitOf(refusal);
        waits.push(wait);
        // While it waits, nothing it presents is compared, and the refusals are not counted.
        for (let j = 0; j < 3; j++) await assert.rejects(t.admit(from, 'any-key'), (e: unknown) => waitOf(e) === wait);
        clock.now += wait * 1000;
      }
      assert.deepEqual(waits, [1, 2, 4, 8, 8], 'two free failures, then 1 s, doubling, at most 8 s');
      assert.equal(events.filter((e) => e.type === 'failure').length, 7);
      assert.ok(events.some((e) => e.type === 'throttled' && e.limit === 'address'));
    },
  );

  it(
    'a key prefix past its free failures is refused only to ' +
      'addresses that failed: a client that has not is still compared',
    async () => {
      const { t } = throttle({ freeFailures: 1 });
      // Two addresses guess keys that start like the owner's, once each: the prefix is then past its one free failure.
      for (const address of ['10.0.0.1', '10.0.0.2']) {
        await t.admit(request(address), 'acme-key-guess');
        assert.equal(await t.failed(request(address), 'acme-key-guess', 'bearer'), undefined);
      }
      await assert.rejects(
        t.admit(request('10.0.0.2'), 'acme-key-other'),
        (e: unknown) => waitOf(e) >= 1 && /keys that start like this one/.test((e as Error).message),
      );
      await t.admit(request('10.0.0.9'), 'acme-key-123456');
      await t.admit(request('10.0.0.2'), 'other-prefix-key');
    },
  );

  it('forgets failures forgetAfterMs after the last one', async () => {
    const { t, clock } = throttle({ freeFailures: 0 });
    const from = request('10.0.0.3');
    assert.equal(waitOf(await t.failed(from, 'wrong-key-1', 'sign_in')), 1);
    clock.now += 60_000;
    assert.equal(waitOf(await t.failed(from, 'wrong-key-2', 'sign_in')), 1, 'counted from 1 again, not 2');
  });

  it('counts an IPv6 /64 as one address and an IPv4-mapped address as IPv4', async () => {
    const { t } = throttle({ freeFailures: 0 });
    await t.failed(request('2001:db8:1:2::a'), 'wrong-key', 'bearer');
    await assert.rejects(t.admit(request('2001:db8:1:2:ffff::1'), 'x-key-123'), (e: unknown) => waitOf(e) === 1);
    await t.admit(request('2001:db8:1:3::1'), 'x-key-123');
    await t.failed(request('::ffff:10.0.0.4'), 'wrong-key', 'bearer');
    await assert.rejects(t.admit(request('10.0.0.4'), 'x-key-123'));
  });

  it('believes X-Forwarded-For only from a trusted proxy, taking the last hop that is not one', async () => {
    const clock = { now: T0 };
    const t = new AuthThrottle({
      limits: new MemoryLimits({ now: () => clock.now }),
      now: () => clock.now,
      trustedProxies: undefined,
    });
    assert.equal(
      t.address(request('10.0.0.5', { 'x-forwarded-for': '1.2.3.4' })),
      '10.0.0.5',
      'no trusted proxies: the header is ignored',
    );
    const { BlockList } = await import('node:net');
    const proxies = new BlockList();
    proxies.addSubnet('10.0.0.0', 8, 'ipv4');
    const behind = new AuthThrottle({ limits: new MemoryLimits(), trustedProxies: proxies });
    assert.equal(
      behind.address(request('10.0.0.5', { 'x-forwarded-for': '6.6.6.6, 1.2.3.4, 10.1.1.1' })),
      '1.2.3.4',
      'what the client wrote before the first untrusted hop is not believed',
    );
    assert.equal(
      behind.address(request('192.0.2.1', { 'x-forwarded-for': '1.2.3.4' })),
      '192.0.2.1',
      'a peer that is not a proxy',
    );
  });

  it('compares keys as usual when the store cannot count, saying so once', async () => {
    const broken: LimitStore = {
      takeSlot: () => Promise.reject(new Error('down')),
      renewSlots: () => Promise.reject(new Error('down')),
      releaseSlot: () => Promise.reject(new Error('down')),
      addStrike: () => Promise.reject(new Error('database unreachable')),
      readStrikes: () => Promise.reject(new Error('database unreachable')),
    };
    const { t, errors } = throttle({ limits: broken });
    await t.admit(request('10.0.0.6'), 'wrong-key');
    assert.equal(await t.failed(request('10.0.0.6'), 'wrong-key', 'bearer'), undefined);
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? '', /failed authentications cannot be counted .*database unreachable/);
  });

  it('refuses settings that make no sense, naming the key', () => {
    const limits = new MemoryLimits();
    assert.throws(
      () => new AuthThrottle({ limits, freeFailures: -1 }),
      /server.authBackoff: freeFailures must be a whole number ≥ 0/,
    );
    assert.throws(
      () => new AuthThrottle({ limits, baseDelayMs: 5000, maxDelayMs: 1000 }),
      /maxDelayMs \(1000\) must be at least baseDelayMs \(5000\)/,
    );
    assert.throws(
      () => new AuthThrottle({ limits, maxDelayMs: 120_000, forgetAfterMs: 60_000 }),
      /forgetAfterMs \(60000\) must be at least maxDelayMs \(120000\)/,
    );
  });
});
