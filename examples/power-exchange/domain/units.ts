// Money and energy are kept as integers inside the venue so that fills, wallet
// updates and reservations never drift by a floating-point cent. Public views
// (tool inputs and results) use plain EUR and MWh numbers.

/** Price tick: prices are quoted in whole cents per MWh (as on EPEX SPOT). */
export const PRICE_TICK_EUR = 0.01;
/** Quantity lot: orders are sized in tenths of a MWh. */
export const QTY_LOT_MWH = 0.1;
/** Harmonised day-ahead price cap; a higher limit is almost certainly a typo. */
export const MAX_PRICE_EUR_PER_MWH = 4000;
/** Largest single order; keeps integer arithmetic exact and typos harmless. */
export const MAX_ORDER_QTY_MWH = 10_000;

const CENTS_PER_EUR = 100;
const LOTS_PER_MWH = 10;
/** A cent per MWh times a tenth of a MWh is a tenth of a cent: cash is held in milli-euros. */
const MILLI_PER_EUR = 1000;
const EPSILON = 1e-6;

function toUnits(value: number, perUnit: number): number | undefined {
  const scaled = value * perUnit;
  const rounded = Math.round(scaled);
  return Math.abs(scaled - rounded) < EPSILON ? rounded : undefined;
}

/** Price in EUR/MWh → integer cents, or undefined when it is not on the 0.01 tick. */
export function priceToCents(price: number): number | undefined {
  return toUnits(price, CENTS_PER_EUR);
}

/** Quantity in MWh → integer lots, or undefined when it is not a multiple of 0.1 MWh. */
export function qtyToLots(qty: number): number | undefined {
  return toUnits(qty, LOTS_PER_MWH);
}

export function centsToPrice(cents: number): number {
  return cents / CENTS_PER_EUR;
}

export function lotsToMWh(lots: number): number {
  return lots / LOTS_PER_MWH;
}

export function eurToMilli(eur: number): number {
  return Math.round(eur * MILLI_PER_EUR);
}

export function milliToEur(milli: number): number {
  return milli / MILLI_PER_EUR;
}

/** Cash value of `lots` at `cents` per MWh, in milli-euros (exact). */
export function costMilli(cents: number, lots: number): number {
  return cents * lots;
}
