// Human-readable renderings of tool results: what a model (or a person in a
// debug console) reads. The same data is in structuredContent for programs.
import type { CancelOrderResult, PlaceOrderResult, RegisterUserResult } from './domain/exchange.ts';
import type { BookLevel, MarketMetrics, OrderBookView, OrderView, WalletView } from './domain/types.ts';

const eur = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 3 });
const mwh = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const price = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
  useGrouping: false,
});

function orDash(value: number | null, format: Intl.NumberFormat = price): string {
  return value === null ? '-' : format.format(value);
}

export function walletText(wallet: WalletView): string {
  return (
    `Wallet of ${wallet.userId}: cash ${eur.format(wallet.cash)} EUR (${eur.format(wallet.availableCash)} available, ` +
    `${eur.format(wallet.reservedCash)} reserved by open BUY orders); energy ${mwh.format(wallet.energyMWh)} MWh ` +
    (`(${mwh.format(wallet.availableEnergyMWh)} available, ` +
      `${mwh.format(wallet.reservedEnergyMWh)} reserved by open SELL orders).`)
  );
}

function levelLine(label: string, level: BookLevel): string {
  const orders = level.orders === 1 ? '1 order' : `${level.orders} orders`;
  return (
    `${label} ${price.format(level.price).padStart(8)} EUR/MWh ` +
    ` ${mwh.format(level.qty).padStart(7)} MWh  (${orders})`
  );
}

export function bookText(book: OrderBookView & { depth: number }): string {
  const lines = [`${book.symbol} order book, best ${book.depth} levels per side:`];
  // Asks from the highest down, so the spread sits in the middle as on a trading screen.
  lines.push(...(book.asks.length === 0 ? ['ASK  (none)'] : [...book.asks].reverse().map((l) => levelLine('ASK', l))));
  lines.push(...(book.bids.length === 0 ? ['BID  (none)'] : book.bids.map((l) => levelLine('BID', l))));
  return lines.join('\n');
}

export function metricsText(m: MarketMetrics): string {
  return [
    `${m.symbol} market metrics (EUR/MWh):`,
    `last ${orDash(m.lastPrice)}, best bid ${orDash(m.bestBid)}, best ask ` +
      `${orDash(m.bestAsk)}, spread ${orDash(m.spread)}, mid ${orDash(m.mid)}`,
    `since start: ${m.tradeCount} trades, volume ${mwh.format(m.volumeMWh)} ` +
      `MWh, turnover ${eur.format(m.turnoverEUR)} EUR, VWAP ${orDash(m.vwap)}`,
  ].join('\n');
}

function orderLine(order: OrderView): string {
  const fill = order.filledQty > 0 && order.status === 'open' ? `, ${mwh.format(order.filledQty)} filled` : '';
  return (
    `${order.orderId} ${order.side} ${mwh.format(order.qty)} MWh ${order.symbol} ` +
    `@ ${price.format(order.price)} EUR/MWh: ${order.status}${fill}`
  );
}

export function ordersText(userId: string, status: string, orders: OrderView[]): string {
  if (orders.length === 0) return `${userId} has no ${status === 'all' ? '' : `${status} `}orders.`;
  return [`Orders of ${userId} (${status}, newest first):`, ...orders.map(orderLine)].join('\n');
}

export function placeText(result: PlaceOrderResult): string {
  const { order, trades } = result;
  const head =
    `Order ${order.orderId} accepted: ${order.side} ${mwh.format(order.qty)} ` +
    `MWh ${order.symbol} limit ${price.format(order.price)} EUR/MWh.`;
  let fills = 'No match: the whole order rests in the book.';
  if (trades.length > 0) {
    const qty = trades.reduce((sum, t) => sum + t.qty, 0);
    const value = trades.reduce((sum, t) => sum + t.qty * t.price, 0);
    const rest = order.status === 'filled' ? 'fully filled' : `${mwh.format(order.remainingQty)} MWh rests in the book`;
    fills =
      `Filled ${mwh.format(qty)} MWh in ${trades.length} trade(s) at an average ` +
      `${price.format(Math.round((value / qty) * 100) / 100)} EUR/MWh; ${rest}.`;
  }
  return `${head}\n${fills}\n${walletText(result.wallet)}`;
}

export function cancelText(result: CancelOrderResult): string {
  const { order } = result;
  const head = result.alreadyCancelled
    ? `Order ${order.orderId} was already cancelled; nothing changed.`
    : `Order ${order.orderId} cancelled: ${mwh.format(order.remainingQty)} ` +
      `MWh unfilled (${mwh.format(order.filledQty)} MWh had traded).`;
  return `${head}\n${walletText(result.wallet)}`;
}

export function registerText(result: RegisterUserResult): string {
  const head = result.created
    ? `Registered user ${result.user.userId} (${result.user.name}).`
    : `User ${result.user.userId} (${result.user.name}) already exists; nothing changed.`;
  return `${head}\n${walletText(result.wallet)}`;
}
