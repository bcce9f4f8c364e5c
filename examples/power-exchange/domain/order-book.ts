import type { Side } from './types.ts';

/** What the book needs to know about a resting order; the exchange owns the record. */
export interface BookOrder {
  orderId: string;
  seq: number;
  userId: string;
  side: Side;
  priceCents: number;
  qtyLots: number;
  filledLots: number;
}

/** One planned match: `lots` of `resting` at the resting order's price. */
export interface PlannedFill<T extends BookOrder> {
  resting: T;
  lots: number;
  priceCents: number;
}

export interface LevelTotals {
  priceCents: number;
  lots: number;
  orders: number;
}

export interface MatchRequest {
  side: Side;
  priceCents: number;
  lots: number;
}

function remaining(order: BookOrder): number {
  return order.qtyLots - order.filledLots;
}

/** Price-time priority: better price first, then earlier arrival. */
function ranksBefore(a: BookOrder, b: BookOrder): boolean {
  if (a.priceCents !== b.priceCents) {
    return a.side === 'BUY' ? a.priceCents > b.priceCents : a.priceCents < b.priceCents;
  }
  return a.seq < b.seq;
}

/**
 * The resting orders of one symbol. It plans matches without mutating
 * anything, so the exchange can refuse an order (funds, self-trade) before a
 * single fill happens; the exchange then applies fills and removes orders.
 */
export class OrderBook<T extends BookOrder = BookOrder> {
  readonly symbol: string;
  // Each side is kept sorted in priority order; books are small, so an
  // insertion into an array beats a tree for clarity.
  private readonly bids: T[] = [];
  private readonly asks: T[] = [];

  constructor(symbol: string) {
    this.symbol = symbol;
  }

  add(order: T): void {
    const side = this.sideOf(order.side);
    const index = side.findIndex((other) => ranksBefore(order, other));
    if (index === -1) side.push(order);
    else side.splice(index, 0, order);
  }

  remove(orderId: string): boolean {
    for (const side of [this.bids, this.asks]) {
      const index = side.findIndex((order) => order.orderId === orderId);
      if (index !== -1) {
        side.splice(index, 1);
        return true;
      }
    }
    return false;
  }

  /** Resting orders an incoming order would trade against, best first, at their prices. */
  planFills(request: MatchRequest): PlannedFill<T>[] {
    const opposite = request.side === 'BUY' ? this.asks : this.bids;
    const fills: PlannedFill<T>[] = [];
    let left = request.lots;
    for (const resting of opposite) {
      if (left <= 0) break;
      const crosses =
        request.side === 'BUY' ? resting.priceCents <= request.priceCents : resting.priceCents >= request.priceCents;
      if (!crosses) break;
      const lots = Math.min(left, remaining(resting));
      fills.push({ resting, lots, priceCents: resting.priceCents });
      left -= lots;
    }
    return fills;
  }

  best(side: Side): T | undefined {
    return this.sideOf(side)[0];
  }

  /** Aggregated price levels, best first, at most `depth` of them. */
  levels(side: Side, depth: number): LevelTotals[] {
    const levels: LevelTotals[] = [];
    for (const order of this.sideOf(side)) {
      const last = levels.at(-1);
      if (last !== undefined && last.priceCents === order.priceCents) {
        last.lots += remaining(order);
        last.orders += 1;
      } else {
        if (levels.length === depth) break;
        levels.push({ priceCents: order.priceCents, lots: remaining(order), orders: 1 });
      }
    }
    return levels;
  }

  orders(side: Side): readonly T[] {
    return this.sideOf(side);
  }

  private sideOf(side: Side): T[] {
    return side === 'BUY' ? this.bids : this.asks;
  }
}
