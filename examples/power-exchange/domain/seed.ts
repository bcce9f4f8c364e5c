import type { Exchange, PlaceOrderInput } from './exchange.ts';

/** Demo traders every fresh venue starts with. */
export const DEMO_USERS = [
  { userId: 'alice', name: 'Alice' },
  { userId: 'bob', name: 'Bob' },
] as const;

// A small, uncrossed book on both contracts, plus one trade so that last
// price and VWAP have something to show.
const DEMO_ORDERS: PlaceOrderInput[] = [
  { userId: 'alice', symbol: 'DE-BASE-D+1', side: 'SELL', price: 86.5, qty: 10 },
  { userId: 'alice', symbol: 'DE-BASE-D+1', side: 'SELL', price: 87.2, qty: 15 },
  { userId: 'bob', symbol: 'DE-BASE-D+1', side: 'BUY', price: 84.8, qty: 12 },
  { userId: 'bob', symbol: 'DE-BASE-D+1', side: 'BUY', price: 84.1, qty: 8 },
  { userId: 'bob', symbol: 'DE-BASE-D+1', side: 'BUY', price: 86.5, qty: 2 },
  { userId: 'alice', symbol: 'FR-PEAK-D+1', side: 'SELL', price: 112.4, qty: 5 },
  { userId: 'bob', symbol: 'FR-PEAK-D+1', side: 'BUY', price: 109.9, qty: 6 },
];

/** Registers the demo users and their resting orders; skips symbols the venue does not list. */
export function seedDemo(exchange: Exchange): void {
  for (const user of DEMO_USERS) exchange.registerUser(user);
  for (const order of DEMO_ORDERS) {
    if (order.symbol === undefined || !exchange.symbols.includes(order.symbol)) continue;
    const placed = exchange.placeOrder(order);
    if (!placed.ok) throw new Error(`demo seed order refused: ${placed.error.message}`);
  }
}
