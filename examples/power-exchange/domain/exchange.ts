import { computeMetrics } from './metrics.ts';
import { OrderBook } from './order-book.ts';
import { settleFill } from './settle.ts';
import { restoreSnapshot } from './snapshot.ts';
import { fail, ok } from './types.ts';
import type {
  ExchangeSnapshot,
  MarketMetrics,
  OrderBookView,
  OrderRecord,
  OrderStatus,
  OrderView,
  Outcome,
  Side,
  TradeRecord,
  TradeView,
  User,
  WalletRecord,
  WalletView,
} from './types.ts';
import { centsToPrice, costMilli, eurToMilli, qtyToLots } from './units.ts';
import { levelView, orderView, tradeView, walletView } from './views.ts';
import { checkCover, validateOrder, validateUserId } from './validate.ts';

/** Day-ahead baseload Germany and peak France: the two contracts the demo lists. */
export const DEFAULT_SYMBOLS: readonly string[] = ['DE-BASE-D+1', 'FR-PEAK-D+1'];
export const DEFAULT_SYMBOL = 'DE-BASE-D+1';
/** What a freshly registered user starts with. */
export const DEFAULT_INITIAL_CASH_EUR = 10_000;
export const DEFAULT_INITIAL_ENERGY_MWH = 100;

export interface ExchangeOptions {
  symbols?: readonly string[];
  initialCashEUR?: number;
  initialEnergyMWh?: number;
  now?: () => Date;
}

export interface PlaceOrderInput {
  userId: string;
  side: Side;
  price: number;
  qty: number;
  symbol?: string | undefined;
}

export interface PlaceOrderResult {
  order: OrderView;
  trades: TradeView[];
  wallet: WalletView;
}

export interface CancelOrderResult {
  order: OrderView;
  wallet: WalletView;
  /** True when the order was already cancelled before this call (nothing changed). */
  alreadyCancelled: boolean;
}

export interface RegisterUserResult {
  user: User;
  wallet: WalletView;
  /** False when the user already existed: registering is idempotent. */
  created: boolean;
}

export type OrderFilter = OrderStatus | 'all';

/** An in-memory electricity venue: users, wallets, one order book per symbol, trades. */
export class Exchange {
  readonly symbols: readonly string[];
  private readonly initialCashMilli: number;
  private readonly initialEnergyLots: number;
  private readonly now: () => Date;
  private readonly users = new Map<string, User>();
  private readonly wallets = new Map<string, WalletRecord>();
  private readonly orders = new Map<string, OrderRecord>();
  private readonly trades: TradeRecord[] = [];
  private readonly books = new Map<string, OrderBook<OrderRecord>>();
  private counters = { user: 0, order: 0, trade: 0 };

  constructor(options: ExchangeOptions = {}) {
    this.symbols = [...(options.symbols ?? DEFAULT_SYMBOLS)];
    this.initialCashMilli = eurToMilli(options.initialCashEUR ?? DEFAULT_INITIAL_CASH_EUR);
    this.initialEnergyLots = qtyToLots(options.initialEnergyMWh ?? DEFAULT_INITIAL_ENERGY_MWH) ?? 0;
    this.now = options.now ?? (() => new Date());
    for (const symbol of this.symbols) this.books.set(symbol, new OrderBook(symbol));
  }

  /** Rebuilds a venue from a snapshot; throws with a readable message when it is inconsistent. */
  static restore(snapshot: ExchangeSnapshot, options: ExchangeOptions = {}): Exchange {
    const exchange = new Exchange(options);
    restoreSnapshot({ snapshot, symbols: exchange.symbols, ...exchange.internals() });
    exchange.counters = { ...snapshot.counters };
    return exchange;
  }

  snapshot(): ExchangeSnapshot {
    return structuredClone({
      users: [...this.users.values()],
      wallets: [...this.wallets.values()],
      orders: [...this.orders.values()],
      trades: this.trades,
      counters: this.counters,
    });
  }

  hasUser(userId: string): boolean {
    return this.users.has(userId);
  }

  registerUser(input: { userId?: string | undefined; name?: string | undefined }): Outcome<RegisterUserResult> {
    const name = input.name?.trim();
    if (name === '') return fail('invalid_user', 'name must not be empty; omit it to use the user id as the name');
    if (input.userId !== undefined) {
      const problem = validateUserId(input.userId);
      if (problem !== undefined) return fail('invalid_user', problem);
      const existing = this.users.get(input.userId);
      if (existing !== undefined)
        return ok({ user: { ...existing }, wallet: this.walletOf(existing.userId), created: false });
    }
    const userId = input.userId ?? this.nextFreeUserId();
    const user: User = { userId, name: name ?? userId, createdAt: this.now().toISOString() };
    this.users.set(userId, user);
    this.wallets.set(userId, {
      userId,
      cashMilli: this.initialCashMilli,
      energyLots: this.initialEnergyLots,
      reservedCashMilli: 0,
      reservedEnergyLots: 0,
    });
    return ok({ user: { ...user }, wallet: this.walletOf(userId), created: true });
  }

  getWallet(userId: string): Outcome<WalletView> {
    if (!this.users.has(userId)) return unknownUser(userId);
    return ok(this.walletOf(userId));
  }

  getOrders(userId: string, status: OrderFilter = 'all'): Outcome<OrderView[]> {
    if (!this.users.has(userId)) return unknownUser(userId);
    const orders = [...this.orders.values()]
      .filter((order) => order.userId === userId && (status === 'all' || order.status === status))
      .sort((a, b) => b.seq - a.seq);
    return ok(orders.map(orderView));
  }

  getOrderBook(symbol: string, depth: number): Outcome<OrderBookView> {
    const book = this.books.get(symbol);
    if (book === undefined) return this.unknownSymbol(symbol);
    return ok({
      symbol,
      bids: book.levels('BUY', depth).map(levelView),
      asks: book.levels('SELL', depth).map(levelView),
    });
  }

  getMetrics(symbol: string): Outcome<MarketMetrics> {
    const book = this.books.get(symbol);
    if (book === undefined) return this.unknownSymbol(symbol);
    return ok(computeMetrics({ symbol, book, trades: this.trades.filter((trade) => trade.symbol === symbol) }));
  }

  placeOrder(input: PlaceOrderInput): Outcome<PlaceOrderResult> {
    const symbol = input.symbol ?? DEFAULT_SYMBOL;
    const book = this.books.get(symbol);
    if (book === undefined) return this.unknownSymbol(symbol);
    const wallet = this.wallets.get(input.userId);
    if (wallet === undefined) return unknownUser(input.userId);
    const checked = validateOrder(input);
    if (!checked.ok) return checked;
    const { priceCents, lots } = checked.value;

    // Refuse before the first fill, so a refused order leaves no trace.
    const covered = checkCover({ wallet, side: input.side, priceCents, lots });
    if (!covered.ok) return covered;
    const fills = book.planFills({ side: input.side, priceCents, lots });
    const own = fills.find((fill) => fill.resting.userId === input.userId);
    if (own !== undefined) {
      return fail(
        'self_trade',
        `this order would trade against your own resting order ` +
          `${own.resting.orderId} at ${centsToPrice(own.priceCents)} EUR/MWh; ` +
          'cancel that order first (cancelOrder) or choose a price that does not cross it',
      );
    }

    const at = this.now().toISOString();
    this.counters.order += 1;
    const order: OrderRecord = {
      orderId: `ord-${this.counters.order}`,
      seq: this.counters.order,
      userId: input.userId,
      symbol,
      side: input.side,
      priceCents,
      qtyLots: lots,
      filledLots: 0,
      status: 'open',
      createdAt: at,
      updatedAt: at,
    };
    this.orders.set(order.orderId, order);
    if (order.side === 'BUY') wallet.reservedCashMilli += costMilli(priceCents, lots);
    else wallet.reservedEnergyLots += lots;

    const walletOf = (userId: string) => this.walletRecord(userId);
    const trades = fills.map((fill) => {
      this.counters.trade += 1;
      const trade = settleFill({ incoming: order, fill, walletOf, tradeId: `trd-${this.counters.trade}`, at });
      if (fill.resting.status === 'filled') book.remove(fill.resting.orderId);
      this.trades.push(trade);
      return trade;
    });
    if (order.status !== 'filled') book.add(order);
    return ok({ order: orderView(order), trades: trades.map(tradeView), wallet: walletView(wallet) });
  }

  cancelOrder(input: { orderId: string; userId?: string | undefined }): Outcome<CancelOrderResult> {
    const order = this.orders.get(input.orderId);
    if (order === undefined) {
      return fail(
        'unknown_order',
        `order '${input.orderId}' does not exist; call getUserOrders to list the user's orders and their ids`,
      );
    }
    if (input.userId !== undefined && input.userId !== order.userId) {
      return fail(
        'not_owner',
        `order '${order.orderId}' does not belong to user '${input.userId}'; only its owner may cancel it`,
      );
    }
    const wallet = this.wallets.get(order.userId);
    if (wallet === undefined)
      throw new Error(`wallet of '${order.userId}' is missing: the venue state is inconsistent`);
    if (order.status === 'cancelled')
      return ok({ order: orderView(order), wallet: walletView(wallet), alreadyCancelled: true });
    if (order.status === 'filled') {
      return fail(
        'not_cancellable',
        `order '${order.orderId}' is already completely filled; there is nothing left to cancel`,
      );
    }
    const left = order.qtyLots - order.filledLots;
    if (order.side === 'BUY') wallet.reservedCashMilli -= costMilli(order.priceCents, left);
    else wallet.reservedEnergyLots -= left;
    this.books.get(order.symbol)?.remove(order.orderId);
    order.status = 'cancelled';
    order.updatedAt = this.now().toISOString();
    return ok({ order: orderView(order), wallet: walletView(wallet), alreadyCancelled: false });
  }

  private walletOf(userId: string): WalletView {
    return walletView(this.walletRecord(userId));
  }

  private walletRecord(userId: string): WalletRecord {
    const wallet = this.wallets.get(userId);
    if (wallet === undefined) throw new Error(`wallet of '${userId}' is missing: the venue state is inconsistent`);
    return wallet;
  }

  private nextFreeUserId(): string {
    let userId: string;
    do {
      this.counters.user += 1;
      userId = `user-${this.counters.user}`;
    } while (this.users.has(userId));
    return userId;
  }

  private unknownSymbol<T>(symbol: string): Outcome<T> {
    return fail('unknown_symbol', `symbol '${symbol}' is not listed; use one of: ${this.symbols.join(', ')}`);
  }

  private internals() {
    return { users: this.users, wallets: this.wallets, orders: this.orders, trades: this.trades, books: this.books };
  }
}

function unknownUser<T>(userId: string): Outcome<T> {
  return fail(
    'unknown_user',
    `user '${userId}' does not exist; call registerUser first (or checkUserExists to verify the id)`,
  );
}
