import type { OrderBook } from './order-book.ts';
import type { ExchangeSnapshot, OrderRecord, TradeRecord, User, WalletRecord } from './types.ts';
import { costMilli } from './units.ts';

export interface RestoreTarget {
  snapshot: ExchangeSnapshot;
  symbols: readonly string[];
  users: Map<string, User>;
  wallets: Map<string, WalletRecord>;
  orders: Map<string, OrderRecord>;
  trades: TradeRecord[];
  books: Map<string, OrderBook<OrderRecord>>;
}

/**
 * Fills an empty venue from a snapshot. A snapshot that contradicts itself
 * (an order of an unknown user, reservations that do not match the open
 * orders) is refused: trading on top of it would silently corrupt wallets.
 */
export function restoreSnapshot(target: RestoreTarget): void {
  const { snapshot } = target;
  const copy = structuredClone(snapshot);
  for (const user of copy.users) target.users.set(user.userId, user);
  for (const wallet of copy.wallets) {
    if (!target.users.has(wallet.userId)) throw new Error(`wallet of unknown user '${wallet.userId}'`);
    target.wallets.set(wallet.userId, wallet);
  }
  for (const user of copy.users) {
    if (!target.wallets.has(user.userId)) throw new Error(`user '${user.userId}' has no wallet`);
  }
  const reserved = new Map<string, { cash: number; energy: number }>();
  for (const order of copy.orders) {
    if (!target.users.has(order.userId))
      throw new Error(`order ${order.orderId} belongs to unknown user '${order.userId}'`);
    const book = target.books.get(order.symbol);
    if (book === undefined)
      throw new Error(
        `order ${order.orderId} is for '${order.symbol}', which is not listed (${target.symbols.join(', ')})`,
      );
    if (order.filledLots > order.qtyLots) throw new Error(`order ${order.orderId} is filled beyond its quantity`);
    // New ids come from the counters: one behind the saved orders would reuse an id.
    if (order.seq > copy.counters.order) throw new Error(`order ${order.orderId} is newer than the order counter`);
    target.orders.set(order.orderId, order);
    if (order.status !== 'open') continue;
    book.add(order);
    const left = order.qtyLots - order.filledLots;
    const sums = reserved.get(order.userId) ?? { cash: 0, energy: 0 };
    if (order.side === 'BUY') sums.cash += costMilli(order.priceCents, left);
    else sums.energy += left;
    reserved.set(order.userId, sums);
  }
  for (const wallet of target.wallets.values()) {
    const sums = reserved.get(wallet.userId) ?? { cash: 0, energy: 0 };
    if (sums.cash !== wallet.reservedCashMilli || sums.energy !== wallet.reservedEnergyLots) {
      throw new Error(`reservations in the wallet of '${wallet.userId}' do not match that user's open orders`);
    }
  }
  target.trades.push(...copy.trades);
}
