/** One count a slot is taken under: at most `max` live slots per `key`. */
export interface SlotLimit {
  /** What is counted, e.g. `gateway-session/tenant/acme` or `gateway-rate/tenant/acme`. */
  key: string;
  /** Live slots allowed under `key` at once (0: none). */
  max: number;
  /** How long the slot lives under this key unless renewed (milliseconds). */
  ttlMs: number;
}

export interface TakeSlotRequest {
  /** Names the slot (unique per use: a session, one call); the same id under a key counts once. */
  id: string;
  limits: readonly SlotLimit[];
  /** Who may renew the slot with renewSlots (a gateway process); absent: it only expires. */
  holder?: string;
}

export type SlotOutcome =
  | { taken: true }
  | {
      taken: false;
      /** The first limit of the request that is full. */
      key: string;
      /** Live slots under it now. */
      live: number;
      /** Until its oldest live slot expires, by the store's clock (milliseconds, ≥ 0). */
      retryAfterMs: number;
    };

/** Failures counted under one key (failed authentications from an address, with a key prefix). */
export interface StrikeCount {
  /** Strikes since the count was last forgotten. */
  count: number;
  /** How long ago the last one was added, by the store's clock (milliseconds, ≥ 0). */
  sinceLastMs: number;
}

/**
 * Counts that must hold across every process sharing a store (decision 0022):
 * the gateway's sessions per tenant and per API key, its rate-limit windows,
 * and failed authentications per client address and key prefix.
 *
 * Contract (checked by test/contract/run-store/limits.ts on every store):
 * - A slot is live from `takeSlot` until its `ttlMs` under that key has passed
 *   (from the take, or from the last `renewSlots` of its holder) or it is released.
 * - `takeSlot` is atomic across processes: it adds the slot under every key of
 *   the request when each key has fewer than `max` live slots (not counting
 *   this id's own), and otherwise adds nothing and names the first full key.
 *   Two racing takes never both fill the last place.
 * - `addStrike` is atomic: racing strikes on one key are all counted. The count
 *   is forgotten (starts again at 1) once `forgetAfterMs` has passed since the
 *   last strike; `readStrikes` leaves out keys whose count is forgotten.
 * - Expired slots and forgotten strikes do not pile up: stores remove them,
 *   and keep the number of strike keys bounded (the oldest go first), so a
 *   caller rotating client addresses cannot grow the store without bound.
 * - Times are judged by the store's clock (the database's, for a store shared
 *   by several machines); callers get durations, never instants.
 */
export interface LimitStore {
  takeSlot(request: TakeSlotRequest): Promise<SlotOutcome>;
  /** Makes every live slot of `holder` live for `ttlMs` from now; resolves how many were renewed. */
  renewSlots(request: { holder: string; ttlMs: number }): Promise<number>;
  /** Removes slot `id` under every key; an unknown id is no error. */
  releaseSlot(id: string): Promise<void>;
  /** Adds one strike under `key` and resolves the count with it. */
  addStrike(request: { key: string; forgetAfterMs: number }): Promise<StrikeCount>;
  /** The counts of those of `keys` that have strikes not yet forgotten. */
  readStrikes(keys: readonly string[]): Promise<Record<string, StrikeCount>>;
}
