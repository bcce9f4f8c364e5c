import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_INITIAL_CASH_EUR, DEFAULT_INITIAL_ENERGY_MWH, Exchange } from './exchange.ts';
import type { PlaceOrderInput } from './exchange.ts';
import { seedDemo } from './seed.ts';
import type { Outcome } from './types.ts';

const SYMBOL = 'DE-BASE-D+1';

function value<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) assert.fail(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

function venue(...userIds: string[]): Exchange {
  const exchange = new Exchange({ now: () => new Date('2026-01-15T10:00:00Z') });
  for (const userId of userIds) value(exchange.registerUser({ userId }));
  return exchange;
}

function place(exchange: Exchange, order: Omit<PlaceOrderInput, 'symbol'>) {
  return value(exchange.placeOrder({ ...order, symbol: SYMBOL }));
}

describe('Exchange users and wallets', () => {
  it('gives a new user the documented starting wallet and registers idempotently', () => {
    const exchange = venue();
    const first = value(exchange.registerUser({ userId: 'carol', name: 'Carol' }));
    assert.equal(first.created, true);
    assert.equal(first.wallet.cash, DEFAULT_INITIAL_CASH_EUR);
    assert.equal(first.wallet.energyMWh, DEFAULT_INITIAL_ENERGY_MWH);
    const again = value(exchange.registerUser({ userId: 'carol', name: 'Other' }));
    assert.equal(again.created, false);
    assert.equal(again.user.name, 'Carol');
  });

  it('generates distinct ids when none is given and rejects malformed ids', () => {
    const exchange = venue();
    const a = value(exchange.registerUser({}));
    const b = value(exchange.registerUser({ name: 'B' }));
    assert.notEqual(a.user.userId, b.user.userId);
    assert.equal(exchange.hasUser(a.user.userId), true);
    const bad = exchange.registerUser({ userId: 'no spaces please' });
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.error.code, 'invalid_user');
  });

  it('says what to do about an unknown user', () => {
    const result = venue().getWallet('zed');
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.error.message : '', /user 'zed' does not exist; call registerUser first/);
  });
});

describe('Exchange matching', () => {
  it('fills a crossing BUY completely at the resting price and moves cash and energy', () => {
    const exchange = venue('seller', 'buyer');
    const ask = place(exchange, { userId: 'seller', side: 'SELL', price: 86.5, qty: 10 });
    const result = place(exchange, { userId: 'buyer', side: 'BUY', price: 90, qty: 10 });
    assert.equal(result.order.status, 'filled');
    assert.equal(result.trades.length, 1);
    assert.equal(result.trades[0]?.price, 86.5);
    assert.equal(result.trades[0]?.sellOrderId, ask.order.orderId);
    assert.deepEqual(value(exchange.getWallet('buyer')), {
      userId: 'buyer',
      cash: 10_000 - 865,
      energyMWh: 110,
      reservedCash: 0,
      reservedEnergyMWh: 0,
      availableCash: 10_000 - 865,
      availableEnergyMWh: 110,
    });
    const seller = value(exchange.getWallet('seller'));
    assert.equal(seller.cash, 10_865);
    assert.equal(seller.energyMWh, 90);
    assert.equal(seller.reservedEnergyMWh, 0);
    assert.equal(value(exchange.getOrders('seller', 'filled'))[0]?.orderId, ask.order.orderId);
  });

  it('fills partially, rests the remainder and keeps its reservation', () => {
    const exchange = venue('seller', 'buyer');
    place(exchange, { userId: 'seller', side: 'SELL', price: 80, qty: 4 });
    const result = place(exchange, { userId: 'buyer', side: 'BUY', price: 81, qty: 10 });
    assert.equal(result.order.status, 'open');
    assert.equal(result.order.filledQty, 4);
    assert.equal(result.order.remainingQty, 6);
    assert.deepEqual(value(exchange.getOrderBook(SYMBOL, 5)).bids, [{ price: 81, qty: 6, orders: 1 }]);
    assert.deepEqual(value(exchange.getOrderBook(SYMBOL, 5)).asks, []);
    assert.equal(result.wallet.cash, 10_000 - 320);
    assert.equal(result.wallet.reservedCash, 486);
    assert.equal(result.wallet.availableCash, 10_000 - 320 - 486);
  });

  it('fills a partially resting order across several incoming orders', () => {
    const exchange = venue('seller', 'b1', 'b2');
    const ask = place(exchange, { userId: 'seller', side: 'SELL', price: 80, qty: 10 });
    place(exchange, { userId: 'b1', side: 'BUY', price: 80, qty: 3 });
    const after = value(exchange.getOrders('seller', 'open'))[0];
    assert.equal(after?.filledQty, 3);
    place(exchange, { userId: 'b2', side: 'BUY', price: 80, qty: 7 });
    assert.equal(value(exchange.getOrders('seller', 'filled'))[0]?.orderId, ask.order.orderId);
    assert.equal(value(exchange.getWallet('seller')).energyMWh, 90);
  });

  it('honours price-time priority: better price first, then the earlier order', () => {
    const exchange = venue('early', 'late', 'cheap', 'buyer');
    const early = place(exchange, { userId: 'early', side: 'SELL', price: 87, qty: 1 });
    const late = place(exchange, { userId: 'late', side: 'SELL', price: 87, qty: 1 });
    const cheap = place(exchange, { userId: 'cheap', side: 'SELL', price: 86, qty: 1 });
    const result = place(exchange, { userId: 'buyer', side: 'BUY', price: 87, qty: 2 });
    assert.deepEqual(
      result.trades.map((t) => [t.sellOrderId, t.price]),
      [
        [cheap.order.orderId, 86],
        [early.order.orderId, 87],
      ],
    );
    assert.equal(value(exchange.getOrders('late', 'open'))[0]?.orderId, late.order.orderId);
  });

  it('matches a SELL against bids at the bid price', () => {
    const exchange = venue('buyer', 'seller');
    place(exchange, { userId: 'buyer', side: 'BUY', price: 85, qty: 5 });
    const result = place(exchange, { userId: 'seller', side: 'SELL', price: 80, qty: 5 });
    assert.equal(result.trades[0]?.price, 85);
    assert.equal(result.trades[0]?.aggressorSide, 'SELL');
    assert.equal(result.wallet.cash, 10_425);
    assert.equal(value(exchange.getWallet('buyer')).reservedCash, 0);
  });

  it('refuses a self-trade before any fill', () => {
    const exchange = venue('a', 'b');
    place(exchange, { userId: 'b', side: 'SELL', price: 80, qty: 1 });
    place(exchange, { userId: 'a', side: 'SELL', price: 81, qty: 1 });
    const result = exchange.placeOrder({ userId: 'a', side: 'BUY', price: 82, qty: 2, symbol: SYMBOL });
    assert.equal(!result.ok && result.error.code, 'self_trade');
    assert.equal(value(exchange.getMetrics(SYMBOL)).tradeCount, 0);
  });
});

describe('Exchange order checks', () => {
  it('rejects a BUY the cash cannot cover, counting reserved cash, and leaves no trace', () => {
    const exchange = venue('u');
    place(exchange, { userId: 'u', side: 'BUY', price: 50, qty: 150 });
    const result = exchange.placeOrder({ userId: 'u', side: 'BUY', price: 50, qty: 51, symbol: SYMBOL });
    assert.equal(!result.ok && result.error.code, 'insufficient_funds');
    assert.match(!result.ok ? result.error.message : '', /needs 2550 EUR but only 2500 EUR is available/);
    assert.equal(value(exchange.getOrders('u')).length, 1);
  });

  it('rejects a SELL the energy cannot cover', () => {
    const exchange = venue('u');
    const result = exchange.placeOrder({ userId: 'u', side: 'SELL', price: 50, qty: 100.1, symbol: SYMBOL });
    assert.equal(!result.ok && result.error.code, 'insufficient_funds');
  });

  it('rejects prices off the tick, quantities off the lot, unknown symbols and users', () => {
    const exchange = venue('u');
    const codes = [
      exchange.placeOrder({ userId: 'u', side: 'BUY', price: 50.001, qty: 1, symbol: SYMBOL }),
      exchange.placeOrder({ userId: 'u', side: 'BUY', price: 50, qty: 0.05, symbol: SYMBOL }),
      exchange.placeOrder({ userId: 'u', side: 'BUY', price: 0, qty: 1, symbol: SYMBOL }),
      exchange.placeOrder({ userId: 'u', side: 'BUY', price: 50, qty: 1, symbol: 'XX' }),
      exchange.placeOrder({ userId: 'zed', side: 'BUY', price: 50, qty: 1, symbol: SYMBOL }),
    ].map((r) => (r.ok ? 'ok' : r.error.code));
    assert.deepEqual(codes, ['invalid_order', 'invalid_order', 'invalid_order', 'unknown_symbol', 'unknown_user']);
  });
});

describe('Exchange cancel', () => {
  it('releases the reservation, removes the order from the book and is idempotent', () => {
    const exchange = venue('u');
    const placed = place(exchange, { userId: 'u', side: 'BUY', price: 50, qty: 10 });
    assert.equal(placed.wallet.reservedCash, 500);
    const cancelled = value(exchange.cancelOrder({ orderId: placed.order.orderId, userId: 'u' }));
    assert.equal(cancelled.order.status, 'cancelled');
    assert.equal(cancelled.alreadyCancelled, false);
    assert.equal(cancelled.wallet.reservedCash, 0);
    assert.deepEqual(value(exchange.getOrderBook(SYMBOL, 5)).bids, []);
    const again = value(exchange.cancelOrder({ orderId: placed.order.orderId }));
    assert.equal(again.alreadyCancelled, true);
    assert.equal(again.wallet.reservedCash, 0);
  });

  it('refuses unknown, foreign and filled orders with their own codes', () => {
    const exchange = venue('a', 'b');
    const ask = place(exchange, { userId: 'a', side: 'SELL', price: 80, qty: 1 });
    const bid = place(exchange, { userId: 'b', side: 'BUY', price: 70, qty: 1 });
    const foreign = exchange.cancelOrder({ orderId: bid.order.orderId, userId: 'a' });
    place(exchange, { userId: 'b', side: 'BUY', price: 80, qty: 1 });
    const filled = exchange.cancelOrder({ orderId: ask.order.orderId });
    const unknown = exchange.cancelOrder({ orderId: 'ord-999' });
    assert.deepEqual(
      [foreign, filled, unknown].map((r) => (r.ok ? 'ok' : r.error.code)),
      ['not_owner', 'not_cancellable', 'unknown_order'],
    );
  });
});

describe('Exchange metrics', () => {
  it('reports nulls before any trade and real figures after', () => {
    const exchange = venue('a', 'b');
    const empty = value(exchange.getMetrics(SYMBOL));
    assert.deepEqual(
      [empty.lastPrice, empty.bestBid, empty.spread, empty.vwap, empty.tradeCount],
      [null, null, null, null, 0],
    );
    place(exchange, { userId: 'a', side: 'SELL', price: 80, qty: 1 });
    place(exchange, { userId: 'a', side: 'SELL', price: 82, qty: 3 });
    place(exchange, { userId: 'b', side: 'BUY', price: 82, qty: 2 });
    place(exchange, { userId: 'b', side: 'BUY', price: 79.5, qty: 1 });
    const metrics = value(exchange.getMetrics(SYMBOL));
    assert.deepEqual(metrics, {
      symbol: SYMBOL,
      lastPrice: 82,
      bestBid: 79.5,
      bestAsk: 82,
      spread: 2.5,
      mid: 80.75,
      volumeMWh: 2,
      turnoverEUR: 162,
      tradeCount: 2,
      vwap: 81,
    });
  });
});

describe('Exchange snapshot', () => {
  it('restores users, wallets, the book, trades and id counters', () => {
    const exchange = venue();
    seedDemo(exchange);
    const restored = Exchange.restore(exchange.snapshot());
    assert.deepEqual(restored.snapshot(), exchange.snapshot());
    assert.deepEqual(value(restored.getOrderBook(SYMBOL, 5)), value(exchange.getOrderBook(SYMBOL, 5)));
    const next = value(restored.placeOrder({ userId: 'bob', side: 'BUY', price: 86.5, qty: 1, symbol: SYMBOL }));
    assert.equal(next.trades.length, 1);
    assert.equal(
      value(exchange.getOrders('bob')).some((o) => o.orderId === next.order.orderId),
      false,
    );
  });

  it('refuses a snapshot whose reservations contradict the open orders', () => {
    const exchange = venue();
    seedDemo(exchange);
    const snapshot = exchange.snapshot();
    const bob = snapshot.wallets.find((w) => w.userId === 'bob');
    assert.ok(bob);
    bob.reservedCashMilli += 1;
    assert.throws(() => Exchange.restore(snapshot), /reservations in the wallet of 'bob'/);
  });

  it('seeds a demo venue with a two-sided book and a last price', () => {
    const exchange = venue();
    seedDemo(exchange);
    const metrics = value(exchange.getMetrics(SYMBOL));
    assert.ok(metrics.bestBid !== null && metrics.bestAsk !== null && metrics.bestBid < metrics.bestAsk);
    assert.equal(metrics.lastPrice, 86.5);
    assert.equal(exchange.hasUser('alice') && exchange.hasUser('bob'), true);
  });
});
