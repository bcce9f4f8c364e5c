import { fail, ok } from './types.ts';
import type { Outcome, Side, WalletRecord } from './types.ts';
import {
  MAX_ORDER_QTY_MWH,
  MAX_PRICE_EUR_PER_MWH,
  PRICE_TICK_EUR,
  QTY_LOT_MWH,
  centsToPrice,
  costMilli,
  lotsToMWh,
  milliToEur,
  priceToCents,
  qtyToLots,
} from './units.ts';

export const USER_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export function validateUserId(userId: string): string | undefined {
  if (USER_ID_PATTERN.test(userId)) return undefined;
  return `user id '${userId}' is not valid: use 1-64 letters, digits, '.', '_' or '-'`;
}

/** Limits and ticks of an order, converted to integer units. */
export function validateOrder(input: { price: number; qty: number }): Outcome<{ priceCents: number; lots: number }> {
  const { price, qty } = input;
  if (!Number.isFinite(price) || price <= 0 || price > MAX_PRICE_EUR_PER_MWH) {
    return fail(
      'invalid_order',
      `price ${price} EUR/MWh is out of range: it must be above 0 and at most ${MAX_PRICE_EUR_PER_MWH}`,
    );
  }
  if (!Number.isFinite(qty) || qty <= 0 || qty > MAX_ORDER_QTY_MWH) {
    return fail(
      'invalid_order',
      `quantity ${qty} MWh is out of range: it must be above 0 and at most ${MAX_ORDER_QTY_MWH}`,
    );
  }
  const priceCents = priceToCents(price);
  if (priceCents === undefined) {
    return fail(
      'invalid_order',
      `price ${price} is not on the ${PRICE_TICK_EUR} EUR/MWh tick; ` +
        `round it to whole cents (e.g. ${Math.round(price * 100) / 100})`,
    );
  }
  const lots = qtyToLots(qty);
  if (lots === undefined || lots === 0) {
    return fail(
      'invalid_order',
      `quantity ${qty} is not a multiple of ${QTY_LOT_MWH} MWh; ` +
        `round it (e.g. ${Math.max(1, Math.round(qty * 10)) / 10})`,
    );
  }
  return ok({ priceCents, lots });
}

/** Whether the wallet can cover a new order: cash at the limit price for a BUY, energy for a SELL. */
export function checkCover(args: {
  wallet: WalletRecord;
  side: Side;
  priceCents: number;
  lots: number;
}): Outcome<true> {
  const { wallet, side, priceCents, lots } = args;
  if (side === 'BUY') {
    const needed = costMilli(priceCents, lots);
    const available = wallet.cashMilli - wallet.reservedCashMilli;
    if (needed <= available) return ok(true);
    return fail(
      'insufficient_funds',
      `insufficient cash: buying ${lotsToMWh(lots)} MWh at ` +
        `${centsToPrice(priceCents)} EUR/MWh needs ${milliToEur(needed)} EUR ` +
        `but only ${milliToEur(available)} EUR is available (cash not reserved by open BUY orders); ` +
        'lower the quantity or the price, or cancel open BUY orders',
    );
  }
  const available = wallet.energyLots - wallet.reservedEnergyLots;
  if (lots <= available) return ok(true);
  return fail(
    'insufficient_funds',
    `insufficient energy: selling ${lotsToMWh(lots)} MWh but only ${lotsToMWh(available)} MWh is available ` +
      '(energy not reserved by open SELL orders); lower the quantity or cancel open SELL orders',
  );
}
