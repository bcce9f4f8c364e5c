import type { PlannedFill } from './order-book.ts';
import type { OrderRecord, TradeRecord, WalletRecord } from './types.ts';
import { costMilli } from './units.ts';

export interface SettleArgs {
  incoming: OrderRecord;
  fill: PlannedFill<OrderRecord>;
  walletOf: (userId: string) => WalletRecord;
  tradeId: string;
  at: string;
}

/**
 * Books one fill: cash and energy change hands at the resting price, both
 * orders advance, reservations shrink. Removing a filled resting order from
 * the book is the caller's job.
 */
export function settleFill({ incoming, fill, walletOf, tradeId, at }: SettleArgs): TradeRecord {
  const { resting, lots, priceCents } = fill;
  const [buy, sell] = incoming.side === 'BUY' ? [incoming, resting] : [resting, incoming];
  const buyer = walletOf(buy.userId);
  const seller = walletOf(sell.userId);
  const value = costMilli(priceCents, lots);
  buyer.cashMilli -= value;
  buyer.energyLots += lots;
  // The buyer reserved at its own limit; a fill at a better price frees the difference.
  buyer.reservedCashMilli -= costMilli(buy.priceCents, lots);
  seller.cashMilli += value;
  seller.energyLots -= lots;
  seller.reservedEnergyLots -= lots;
  for (const order of [buy, sell]) {
    order.filledLots += lots;
    order.updatedAt = at;
    if (order.filledLots === order.qtyLots) order.status = 'filled';
  }
  return {
    tradeId,
    symbol: incoming.symbol,
    priceCents,
    qtyLots: lots,
    buyOrderId: buy.orderId,
    sellOrderId: sell.orderId,
    buyerId: buy.userId,
    sellerId: sell.userId,
    aggressorSide: incoming.side,
    executedAt: at,
  };
}
