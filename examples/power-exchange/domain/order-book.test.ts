import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OrderBook } from './order-book.ts';
import type { BookOrder } from './order-book.ts';

let seq = 0;
function order(side: BookOrder['side'], priceCents: number, qtyLots: number, userId = 'u'): BookOrder {
  seq += 1;
  return { orderId: `o${seq}`, seq, userId, side, priceCents, qtyLots, filledLots: 0 };
}

describe('OrderBook', () => {
  it('keeps each side in price-time priority', () => {
    const book = new OrderBook('X');
    const a = order('SELL', 8700, 10);
    const b = order('SELL', 8600, 10);
    const c = order('SELL', 8600, 10);
    const d = order('BUY', 8400, 10);
    const e = order('BUY', 8500, 10);
    for (const o of [a, b, c, d, e]) book.add(o);
    assert.deepEqual(
      book.orders('SELL').map((o) => o.orderId),
      [b.orderId, c.orderId, a.orderId],
    );
    assert.deepEqual(
      book.orders('BUY').map((o) => o.orderId),
      [e.orderId, d.orderId],
    );
    assert.equal(book.best('SELL'), b);
    assert.equal(book.best('BUY'), e);
  });

  it('plans fills at resting prices, best first, up to the limit, without mutating', () => {
    const book = new OrderBook('X');
    const cheap = order('SELL', 8600, 5);
    const dear = order('SELL', 8700, 5);
    const tooDear = order('SELL', 9000, 5);
    for (const o of [tooDear, dear, cheap]) book.add(o);
    const fills = book.planFills({ side: 'BUY', priceCents: 8800, lots: 8 });
    assert.deepEqual(
      fills.map((f) => [f.resting.orderId, f.lots, f.priceCents]),
      [
        [cheap.orderId, 5, 8600],
        [dear.orderId, 3, 8700],
      ],
    );
    assert.equal(dear.filledLots, 0);
    assert.equal(book.orders('SELL').length, 3);
  });

  it('plans nothing when the limit does not cross', () => {
    const book = new OrderBook('X');
    book.add(order('BUY', 8400, 5));
    assert.deepEqual(book.planFills({ side: 'SELL', priceCents: 8500, lots: 5 }), []);
    assert.equal(book.planFills({ side: 'SELL', priceCents: 8400, lots: 5 }).length, 1);
  });

  it('aggregates remaining quantity per price level and honours depth', () => {
    const book = new OrderBook('X');
    const partly = order('BUY', 8500, 10);
    partly.filledLots = 4;
    for (const o of [partly, order('BUY', 8500, 3), order('BUY', 8400, 1), order('BUY', 8300, 1)]) book.add(o);
    assert.deepEqual(book.levels('BUY', 2), [
      { priceCents: 8500, lots: 9, orders: 2 },
      { priceCents: 8400, lots: 1, orders: 1 },
    ]);
  });

  it('removes an order by id and reports whether it was there', () => {
    const book = new OrderBook('X');
    const o = order('SELL', 8600, 5);
    book.add(o);
    assert.equal(book.remove(o.orderId), true);
    assert.equal(book.remove(o.orderId), false);
    assert.equal(book.best('SELL'), undefined);
  });
});
