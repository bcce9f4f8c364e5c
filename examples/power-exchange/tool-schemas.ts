import * as z from 'zod';
import { DEFAULT_SYMBOL, DEFAULT_SYMBOLS } from './domain/exchange.ts';

/** Depth of getOrderBook when the caller does not say. */
export const DEFAULT_BOOK_DEPTH = 5;
export const MAX_BOOK_DEPTH = 50;

const userId = z.string().min(1).max(64).describe('User id, e.g. "alice"');
const symbol = z
  .string()
  .min(1)
  .describe(`Contract symbol, one of ${DEFAULT_SYMBOLS.join(', ')}; defaults to ${DEFAULT_SYMBOL}`);
const side = z.enum(['BUY', 'SELL']);

export const inputSchemas = {
  getOrderBook: z.object({
    depth: z
      .number()
      .int()
      .min(1)
      .max(MAX_BOOK_DEPTH)
      .optional()
      .describe(`Price levels per side (default ${DEFAULT_BOOK_DEPTH})`),
    symbol: symbol.optional(),
  }),
  getMarketMetrics: z.object({ symbol: symbol.optional() }),
  getUserWallet: z.object({ userId }),
  getUserOrders: z.object({
    userId,
    status: z.enum(['open', 'filled', 'cancelled', 'all']).optional().describe('Which orders to list (default all)'),
  }),
  checkUserExists: z.object({ userId }),
  getServerStats: z.object({}),
  placeOrder: z.object({
    userId: userId.describe('The trader placing the order (must be registered)'),
    side: side.describe('BUY to buy energy, SELL to sell it'),
    price: z.number().positive().describe('Limit price in EUR/MWh, in whole cents (0.01 tick), at most 4000'),
    qty: z.number().positive().describe('Quantity in MWh, a multiple of 0.1'),
    symbol: z
      .string()
      .min(1)
      .describe(`Contract symbol, one of ${DEFAULT_SYMBOLS.join(', ')}`),
  }),
  cancelOrder: z.object({
    orderId: z.string().min(1).describe('Order id as returned by placeOrder, e.g. "ord-12"'),
    userId: userId.optional().describe('When given, the order must belong to this user'),
  }),
  registerUser: z.object({
    userId: userId.optional().describe('Wanted id (letters, digits, . _ -); generated when omitted'),
    name: z.string().min(1).max(100).optional().describe('Display name; defaults to the user id'),
  }),
};

const nullablePrice = z.number().nullable();
const level = z.object({ price: z.number(), qty: z.number(), orders: z.number().int() });
const wallet = z.object({
  userId: z.string(),
  cash: z.number(),
  energyMWh: z.number(),
  reservedCash: z.number(),
  reservedEnergyMWh: z.number(),
  availableCash: z.number(),
  availableEnergyMWh: z.number(),
});
const order = z.object({
  orderId: z.string(),
  userId: z.string(),
  symbol: z.string(),
  side,
  price: z.number(),
  qty: z.number(),
  filledQty: z.number(),
  remainingQty: z.number(),
  status: z.enum(['open', 'filled', 'cancelled']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const trade = z.object({
  tradeId: z.string(),
  symbol: z.string(),
  price: z.number(),
  qty: z.number(),
  buyOrderId: z.string(),
  sellOrderId: z.string(),
  buyerId: z.string(),
  sellerId: z.string(),
  aggressorSide: side,
  executedAt: z.string(),
});
const user = z.object({ userId: z.string(), name: z.string(), createdAt: z.string() });
const counts = z.record(z.string(), z.number());

export const outputSchemas = {
  getOrderBook: z.object({ symbol: z.string(), depth: z.number().int(), bids: z.array(level), asks: z.array(level) }),
  getMarketMetrics: z.object({
    symbol: z.string(),
    lastPrice: nullablePrice,
    bestBid: nullablePrice,
    bestAsk: nullablePrice,
    spread: nullablePrice,
    mid: nullablePrice,
    volumeMWh: z.number(),
    turnoverEUR: z.number(),
    tradeCount: z.number().int(),
    vwap: nullablePrice,
  }),
  getUserWallet: wallet,
  getUserOrders: z.object({ userId: z.string(), status: z.string(), orders: z.array(order) }),
  checkUserExists: z.object({ userId: z.string(), exists: z.boolean() }),
  getServerStats: z.object({ received: counts, executed: counts, deduplicated: z.number().int() }),
  placeOrder: z.object({ order, trades: z.array(trade), wallet }),
  cancelOrder: z.object({ order, wallet, alreadyCancelled: z.boolean() }),
  registerUser: z.object({ user, wallet, created: z.boolean() }),
};
