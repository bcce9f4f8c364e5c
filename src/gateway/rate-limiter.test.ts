import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolgateError } from '../core/index.ts';
import { MemoryLimits } from '../store/memory/memory-limits.ts';
import { RateLimiter, type RateLimit, type RateLimits } from './rate-limiter.ts';

const T0 = 1_700_000_000_000;
const LOOKUP = { name: 'lookup', server: 'shop', tool: 'lookup' };
const PLACE_ORDER = { name: 'placeOrder', server: 'shop', tool: 'placeOrder' };
const A = { tenantId: 'acme' };
const B = { tenantId: 'globex' };

/** A limiter counting in a store on a clock the test moves. */
function limiter(limits: RateLimits): { limiter: RateLimiter; clock: { now: number } } {
  const clock = { now: T0 };
  return { limiter: new RateLimiter(limits, new MemoryLimits({ now: () => clock.now })), clock };
}

/** A per-tool rule for one `server/tool`. */
function rule(server: string, tool: string, limit: RateLimit) {
  return {
    pattern: `${server}/${tool}`,
    limit,
    matches: (t: { server: string; tool: string }) => t.server === server && t.tool === tool,
  };
}

describe('RateLimiter', () => {
  it(
    'lets calls under the tenant limit through, then ' + 'refuses naming the tenant, the limit and when to retry',
    async () => {
      const { limiter: l, clock } = limiter({ tenant: { calls: 2, perSeconds: 10 } });
      assert.equal(await l.take(A, LOOKUP), undefined);
      assert.equal(await l.take(A, PLACE_ORDER), undefined);
      assert.equal(await l.take(A, LOOKUP), 'rate limit: tenant "acme" may make 2 calls per 10 s; retry in 10 s');
      clock.now = T0 + 3_500;
      assert.match((await l.take(A, LOOKUP)) ?? '', /retry in 7 s$/, '6.5 s left in the window: rounded up');
      clock.now = T0 + 9_999;
      assert.match((await l.take(A, LOOKUP)) ?? '', /retry in 1 s$/, 'never "retry in 0 s"');
    },
  );

  it('the retry time counts from the oldest call in the window', async () => {
    const { limiter: l, clock } = limiter({ tenant: { calls: 2, perSeconds: 10 } });
    assert.equal(await l.take(A, LOOKUP), undefined);
    clock.now = T0 + 4_000;
    assert.equal(await l.take(A, LOOKUP), undefined);
    clock.now = T0 + 5_000;
    assert.match((await l.take(A, LOOKUP)) ?? '', /retry in 5 s$/);
    clock.now = T0 + 10_000;
    assert.equal(await l.take(A, LOOKUP), undefined, 'the first call left the window: one slot is free');
    assert.match((await l.take(A, LOOKUP)) ?? '', /retry in 4 s$/, 'now the call made at 4 s is the oldest');
  });

  it('the window slides: after perSeconds the calls count no more', async () => {
    const { limiter: l, clock } = limiter({ tenant: { calls: 2, perSeconds: 10 } });
    await l.take(A, LOOKUP);
    await l.take(A, LOOKUP);
    clock.now = T0 + 9_999;
    assert.notEqual(await l.take(A, LOOKUP), undefined);
    clock.now = T0 + 10_000;
    assert.equal(await l.take(A, LOOKUP), undefined);
    assert.equal(await l.take(A, LOOKUP), undefined);
    assert.notEqual(await l.take(A, LOOKUP), undefined);
  });

  it('a refused call does not count against the window', async () => {
    const { limiter: l, clock } = limiter({ tenant: { calls: 1, perSeconds: 10 } });
    assert.equal(await l.take(A, LOOKUP), undefined);
    for (const at of [1_000, 5_000, 9_000]) {
      clock.now = T0 + at;
      assert.equal(
        await l.take(A, LOOKUP),
        'rate limit: tenant "acme" may make 1 call per 10 s; retry in ' +
          String(Math.ceil((10_000 - at) / 1000)) +
          ' s',
      );
    }
    clock.now = T0 + 10_000;
    assert.equal(await l.take(A, LOOKUP), undefined, 'the refusals at 1, 5 and 9 s took nothing');
  });

  it('counts each tenant on its own; a caller without a tenant is the anonymous tenant', async () => {
    const { limiter: l } = limiter({ tenant: { calls: 1, perSeconds: 60 } });
    assert.equal(await l.take(A, LOOKUP), undefined);
    assert.notEqual(await l.take(A, LOOKUP), undefined);
    assert.equal(await l.take(B, LOOKUP), undefined, 'acme exhausting its limit leaves globex alone');
    assert.equal(await l.take({}, LOOKUP), undefined);
    assert.equal(
      await l.take({ tenantId: undefined }, LOOKUP),
      'rate limit: tenant "(anonymous)" may make 1 call per 60 s; retry in 60 s',
    );
  });

  it('a per-tool rule applies per tenant, and only to the tools it matches', async () => {
    const { limiter: l } = limiter({ tools: [rule('shop', 'placeOrder', { calls: 1, perSeconds: 60 })] });
    assert.equal(await l.take(A, PLACE_ORDER), undefined);
    assert.equal(
      await l.take(A, PLACE_ORDER),
      'rate limit: placeOrder (rule "shop/placeOrder") for tenant "acme" may make 1 call per 60 s; retry in 60 s',
    );
    assert.equal(await l.take(B, PLACE_ORDER), undefined, 'globex has a window of its own');
    for (let i = 0; i < 50; i++)
      assert.equal(await l.take(A, LOOKUP), undefined, 'lookup matches no rule and there is no tenant limit');
    assert.equal(
      await l.take(A, { name: 'placeOrder', server: 'other', tool: 'placeOrder' }),
      undefined,
      'same name on another server: not matched',
    );
  });

  it('with both limits, a call refused by the tool rule takes nothing from the tenant limit', async () => {
    const { limiter: l } = limiter({
      tenant: { calls: 3, perSeconds: 60 },
      tools: [rule('shop', 'placeOrder', { calls: 1, perSeconds: 60 })],
    });
    assert.equal(await l.take(A, PLACE_ORDER), undefined);
    assert.match(
      (await l.take(A, PLACE_ORDER)) ?? '',
      /^rate limit: placeOrder \(rule "shop\/placeOrder"\)/,
      'the tool rule refuses though the tenant has calls left',
    );
    assert.equal(await l.take(A, LOOKUP), undefined);
    assert.equal(await l.take(A, LOOKUP), undefined, 'the tenant window holds 3: the refused call did not use one');
    assert.match((await l.take(A, LOOKUP)) ?? '', /^rate limit: tenant "acme" may make 3 calls per 60 s/);
  });

  it('with both limits, a call refused by the tenant limit takes nothing from the tool rule', async () => {
    const { limiter: l, clock } = limiter({
      tenant: { calls: 1, perSeconds: 10 },
      tools: [rule('shop', 'placeOrder', { calls: 1, perSeconds: 60 })],
    });
    assert.equal(await l.take(A, LOOKUP), undefined);
    clock.now = T0 + 1_000;
    assert.match(
      (await l.take(A, PLACE_ORDER)) ?? '',
      /^rate limit: tenant "acme"/,
      'the tenant limit refuses though the tool rule has room',
    );
    clock.now = T0 + 10_000;
    assert.equal(await l.take(A, PLACE_ORDER), undefined, 'the tool window was left empty by the refusal');
    clock.now = T0 + 20_000;
    assert.match(
      (await l.take(A, PLACE_ORDER)) ?? '',
      /^rate limit: placeOrder .* retry in 50 s$/,
      'and now holds the call made at 10 s',
    );
  });

  it('of several matching rules, the most specific pattern applies', async () => {
    const catchAll = { pattern: '*', limit: { calls: 100, perSeconds: 60 }, matches: () => true };
    const { limiter: l } = limiter({ tools: [catchAll, rule('shop', 'placeOrder', { calls: 1, perSeconds: 60 })] });
    assert.equal(await l.take(A, PLACE_ORDER), undefined);
    assert.match(
      (await l.take(A, PLACE_ORDER)) ?? '',
      /rule "shop\/placeOrder"/,
      'shop/placeOrder is more specific than *',
    );
  });

  it('refuses a limit that allows nothing, naming the fix', async () => {
    const bad: RateLimit[] = [
      { calls: 0, perSeconds: 60 },
      { calls: 1, perSeconds: 0 },
      { calls: -1, perSeconds: 60 },
      { calls: 1, perSeconds: -5 },
      { calls: Number.NaN, perSeconds: 60 },
      { calls: 1, perSeconds: Number.NaN },
    ];
    const isConfigInvalid = (error: unknown): true => {
      assert.ok(error instanceof ToolgateError);
      assert.equal(error.code, 'config_invalid');
      assert.match(error.message, /calls ≥ 1 and perSeconds > 0/);
      return true;
    };
    for (const limit of bad) {
      assert.throws(
        () => new RateLimiter({ tenant: limit }, new MemoryLimits()),
        isConfigInvalid,
        JSON.stringify(limit),
      );
      assert.throws(
        () => new RateLimiter({ tools: [rule('shop', 'placeOrder', limit)] }, new MemoryLimits()),
        isConfigInvalid,
        JSON.stringify(limit),
      );
    }
    assert.doesNotThrow(() => new RateLimiter({}, new MemoryLimits()));
    assert.doesNotThrow(() => new RateLimiter({ tenant: { calls: 1, perSeconds: 0.5 } }, new MemoryLimits()));
  });

  it(
    'property: within any window of perSeconds, at most `calls` ' +
      'calls pass, and a call passes whenever the window has room',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 5 }),
          fc.integer({ min: 1, max: 10 }),
          fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 60 }),
          async (calls, perSeconds, gaps) => {
            const clock = { now: T0 };
            const l = new RateLimiter({ tenant: { calls, perSeconds } }, new MemoryLimits({ now: () => clock.now }));
            const passed: number[] = [];
            for (const gap of gaps) {
              clock.now += gap;
              const inWindow = passed.filter((t) => t > clock.now - perSeconds * 1000).length;
              const refused = await l.take(A, LOOKUP);
              assert.equal(
                refused === undefined,
                inWindow < calls,
                `at ${clock.now - T0} ms with ${inWindow} calls in the window`,
              );
              if (refused === undefined) passed.push(clock.now);
            }
          },
        ),
      );
    },
  );
});
