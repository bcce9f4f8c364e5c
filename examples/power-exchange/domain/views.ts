import type { LevelTotals } from './order-book.ts';
import type { BookLevel, OrderRecord, OrderView, TradeRecord, TradeView, WalletRecord, WalletView } from './types.ts';
import { centsToPrice, lotsToMWh, milliToEur } from './units.ts';

export function walletView(wallet: WalletRecord): WalletView {
  return {
    userId: wallet.userId,
    cash: milliToEur(wallet.cashMilli),
    energyMWh: lotsToMWh(wallet.energyLots),
    reservedCash: milliToEur(wallet.reservedCashMilli),
    reservedEnergyMWh: lotsToMWh(wallet.reservedEnergyLots),
    availableCash: milliToEur(wallet.cashMilli - wallet.reservedCashMilli),
    availableEnergyMWh: lotsToMWh(wallet.energyLots - wallet.reservedEnergyLots),
  };
}

export function orderView(order: OrderRecord): OrderView {
  return {
    orderId: order.orderId,
    userId: order.userId,
    symbol: order.symbol,
    side: order.side,
    price: centsToPrice(order.priceCents),
    qty: lotsToMWh(order.qtyLots),
    filledQty: lotsToMWh(order.filledLots),
    remainingQty: lotsToMWh(order.qtyLots - order.filledLots),
    status: order.status,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function tradeView(trade: TradeRecord): TradeView {
  return {
    tradeId: trade.tradeId,
    symbol: trade.symbol,
    price: centsToPrice(trade.priceCents),
    qty: lotsToMWh(trade.qtyLots),
    buyOrderId: trade.buyOrderId,
    sellOrderId: trade.sellOrderId,
    buyerId: trade.buyerId,
    sellerId: trade.sellerId,
    aggressorSide: trade.aggressorSide,
    executedAt: trade.executedAt,
  };
}

export function levelView(level: LevelTotals): BookLevel {
  return { price: centsToPrice(level.priceCents), qty: lotsToMWh(level.lots), orders: level.orders };
}
