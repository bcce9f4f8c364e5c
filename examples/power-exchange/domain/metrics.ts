import type { OrderBook } from './order-book.ts';
import type { MarketMetrics, TradeRecord } from './types.ts';
import { centsToPrice, costMilli, lotsToMWh, milliToEur } from './units.ts';

export interface MetricsInput {
  symbol: string;
  book: OrderBook;
  /** Trades of this symbol, oldest first. */
  trades: readonly TradeRecord[];
}

/** Market figures a trader looks at first; nulls mean "no data yet", never zero. */
export function computeMetrics({ symbol, book, trades }: MetricsInput): MarketMetrics {
  let lots = 0;
  let turnoverMilli = 0;
  for (const trade of trades) {
    lots += trade.qtyLots;
    turnoverMilli += costMilli(trade.priceCents, trade.qtyLots);
  }
  const bidCents = book.best('BUY')?.priceCents;
  const askCents = book.best('SELL')?.priceCents;
  const bothSides = bidCents !== undefined && askCents !== undefined;
  const last = trades.at(-1);
  return {
    symbol,
    lastPrice: last === undefined ? null : centsToPrice(last.priceCents),
    bestBid: bidCents === undefined ? null : centsToPrice(bidCents),
    bestAsk: askCents === undefined ? null : centsToPrice(askCents),
    spread: bothSides ? centsToPrice(askCents - bidCents) : null,
    // Half a cent is a legal mid even though it is not a legal price.
    mid: bothSides ? (bidCents + askCents) / 200 : null,
    volumeMWh: lotsToMWh(lots),
    turnoverEUR: milliToEur(turnoverMilli),
    tradeCount: trades.length,
    // milli-EUR / lots is a volume-weighted price in cents; kept to 1/100 cent.
    vwap: lots === 0 ? null : Math.round((turnoverMilli / lots) * 100) / 10_000,
  };
}
