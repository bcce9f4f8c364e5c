// Records are what the venue stores (integer units, see units.ts); views are
// what tools return (EUR and MWh). Snapshots are records, so a restored venue
// is bit-for-bit the one that was saved.

export type Side = 'BUY' | 'SELL';
export type OrderStatus = 'open' | 'filled' | 'cancelled';

export interface User {
  userId: string;
  name: string;
  createdAt: string;
}

export interface WalletRecord {
  userId: string;
  cashMilli: number;
  energyLots: number;
  /** Cash locked by open BUY orders (limit price × remaining quantity). */
  reservedCashMilli: number;
  /** Energy locked by open SELL orders. */
  reservedEnergyLots: number;
}

export interface OrderRecord {
  orderId: string;
  /** Global arrival sequence: the "time" in price-time priority. */
  seq: number;
  userId: string;
  symbol: string;
  side: Side;
  priceCents: number;
  qtyLots: number;
  filledLots: number;
  status: OrderStatus;
  createdAt: string;
  updatedAt: string;
}

export interface TradeRecord {
  tradeId: string;
  symbol: string;
  priceCents: number;
  qtyLots: number;
  buyOrderId: string;
  sellOrderId: string;
  buyerId: string;
  sellerId: string;
  /** The side of the incoming order that took liquidity. */
  aggressorSide: Side;
  executedAt: string;
}

export interface WalletView {
  userId: string;
  cash: number;
  energyMWh: number;
  reservedCash: number;
  reservedEnergyMWh: number;
  /** What a new BUY may spend: cash minus reservations. */
  availableCash: number;
  /** What a new SELL may deliver: energy minus reservations. */
  availableEnergyMWh: number;
}

export interface OrderView {
  orderId: string;
  userId: string;
  symbol: string;
  side: Side;
  price: number;
  qty: number;
  filledQty: number;
  remainingQty: number;
  status: OrderStatus;
  createdAt: string;
  updatedAt: string;
}

export interface TradeView {
  tradeId: string;
  symbol: string;
  price: number;
  qty: number;
  buyOrderId: string;
  sellOrderId: string;
  buyerId: string;
  sellerId: string;
  aggressorSide: Side;
  executedAt: string;
}

export interface BookLevel {
  price: number;
  qty: number;
  orders: number;
}

export interface OrderBookView {
  symbol: string;
  bids: BookLevel[];
  asks: BookLevel[];
}

export interface MarketMetrics {
  symbol: string;
  lastPrice: number | null;
  bestBid: number | null;
  bestAsk: number | null;
  spread: number | null;
  mid: number | null;
  /** Traded volume since the venue started (a restored state keeps its history). */
  volumeMWh: number;
  turnoverEUR: number;
  tradeCount: number;
  /** Volume-weighted average trade price since the venue started. */
  vwap: number | null;
}

export interface ExchangeSnapshot {
  users: User[];
  wallets: WalletRecord[];
  orders: OrderRecord[];
  trades: TradeRecord[];
  counters: { user: number; order: number; trade: number };
}

export type ExchangeErrorCode =
  | 'unknown_user'
  | 'unknown_order'
  | 'unknown_symbol'
  | 'invalid_order'
  | 'invalid_user'
  | 'insufficient_funds'
  | 'self_trade'
  | 'not_owner'
  | 'not_cancellable';

/** Business refusals are data: the message says what was wrong and what to do. */
export interface ExchangeError {
  code: ExchangeErrorCode;
  message: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ExchangeError };

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ExchangeErrorCode, message: string): Outcome<T> {
  return { ok: false, error: { code, message } };
}
