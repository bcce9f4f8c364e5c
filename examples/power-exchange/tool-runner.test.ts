import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Exchange } from './domain/exchange.ts';
import { IDEMPOTENCY_META_KEY, IdempotencyStore, REPLAY_META_KEY } from './idempotency.ts';
import { ServerStats } from './server-stats.ts';
import { reply } from './tool-reply.ts';
import { NO_FAULTS, runTool } from './tool-runner.ts';
import type { FaultOptions, ToolRuntime } from './tool-runner.ts';

class ExitCalled extends Error {}

function runtime(faults: Partial<FaultOptions> = {}) {
  let saves = 0;
  const exits: number[] = [];
  const rt: ToolRuntime = {
    exchange: new Exchange(),
    stats: new ServerStats(),
    idempotency: new IdempotencyStore(),
    faults: { ...NO_FAULTS, ...faults },
    persist: () => {
      saves += 1;
    },
    exit: ({ code }) => {
      exits.push(code);
      throw new ExitCalled();
    },
    now: () => new Date('2026-01-15T10:00:00Z'),
  };
  return { rt, saves: () => saves, exits };
}

function counter() {
  let calls = 0;
  return {
    execute: () => {
      calls += 1;
      return reply(`call ${calls}`, { calls });
    },
    calls: () => calls,
  };
}

const key = (value: string) => ({ [IDEMPOTENCY_META_KEY]: value });

describe('runTool', () => {
  it('runs a repeated write once under one idempotency key and replays the first answer', async () => {
    const { rt, saves } = runtime();
    const work = counter();
    const first = await runTool(rt, { tool: 'placeOrder', write: true, meta: key('r1:c1'), execute: work.execute });
    const second = await runTool(rt, { tool: 'placeOrder', write: true, meta: key('r1:c1'), execute: work.execute });
    assert.equal(work.calls(), 1);
    assert.deepEqual(second.structuredContent, first.structuredContent);
    assert.equal(second._meta?.[REPLAY_META_KEY], true);
    assert.equal(first._meta, undefined);
    assert.equal(saves(), 1);
    assert.deepEqual(rt.stats.snapshot(), {
      received: { placeOrder: 2 },
      executed: { placeOrder: 1 },
      deduplicated: 1,
    });
  });

  it('runs writes without a key, or with different keys, every time', async () => {
    const { rt } = runtime();
    const work = counter();
    await runTool(rt, { tool: 'placeOrder', write: true, meta: undefined, execute: work.execute });
    await runTool(rt, { tool: 'placeOrder', write: true, meta: undefined, execute: work.execute });
    await runTool(rt, { tool: 'placeOrder', write: true, meta: key('a'), execute: work.execute });
    await runTool(rt, { tool: 'placeOrder', write: true, meta: key('b'), execute: work.execute });
    assert.equal(work.calls(), 4);
  });

  it('ignores the key on reads, which are safe to repeat', async () => {
    const { rt, saves } = runtime();
    const work = counter();
    await runTool(rt, { tool: 'getOrderBook', write: false, meta: key('k'), execute: work.execute });
    await runTool(rt, { tool: 'getOrderBook', write: false, meta: key('k'), execute: work.execute });
    assert.equal(work.calls(), 2);
    assert.equal(saves(), 0);
  });

  it('makes a retry that arrives while the first call is still running wait for it', async () => {
    const { rt } = runtime({ delays: new Map([['placeOrder', 20]]) });
    const work = counter();
    const call = () => runTool(rt, { tool: 'placeOrder', write: true, meta: key('r1:c9'), execute: work.execute });
    const [a, b] = await Promise.all([call(), call()]);
    assert.equal(work.calls(), 1);
    assert.deepEqual(a.structuredContent, b.structuredContent);
    assert.equal(rt.stats.snapshot().deduplicated, 1);
  });

  it('refuses to replay a key under a different tool', async () => {
    const { rt } = runtime();
    await runTool(rt, { tool: 'placeOrder', write: true, meta: key('k'), execute: counter().execute });
    const other = await runTool(rt, { tool: 'cancelOrder', write: true, meta: key('k'), execute: counter().execute });
    assert.equal(other.isError, true);
    assert.match(other.content[0]?.text ?? '', /already used for placeOrder/);
  });

  it('throws for --fail-on without executing or remembering the key', async () => {
    const { rt } = runtime({ failOn: new Set(['placeOrder']) });
    const work = counter();
    await assert.rejects(
      runTool(rt, { tool: 'placeOrder', write: true, meta: key('k'), execute: work.execute }),
      /--fail-on placeOrder/,
    );
    assert.equal(work.calls(), 0);
    assert.equal(rt.idempotency.find('k'), undefined);
    assert.deepEqual(rt.stats.snapshot().executed, {});
  });

  it('exits with code 1 for --exit-on after counting the call and before running it', async () => {
    const { rt, exits } = runtime({ exitOn: new Set(['cancelOrder']) });
    const work = counter();
    await assert.rejects(
      runTool(rt, { tool: 'cancelOrder', write: true, meta: undefined, execute: work.execute }),
      ExitCalled,
    );
    assert.deepEqual(exits, [1]);
    assert.equal(work.calls(), 0);
    assert.deepEqual(rt.stats.snapshot().received, { cancelOrder: 1 });
  });
});

describe('IdempotencyStore', () => {
  it('forgets the oldest keys beyond its bound and restores from records', () => {
    const store = new IdempotencyStore({ maxKeys: 2 });
    for (const k of ['a', 'b', 'c']) store.remember({ key: k, tool: 't', reply: reply(k), at: 'now' });
    assert.equal(store.size, 2);
    assert.equal(store.find('a'), undefined);
    const restored = new IdempotencyStore({ records: store.snapshot() });
    assert.deepEqual(
      restored.snapshot().map((r) => r.key),
      ['b', 'c'],
    );
  });
});
