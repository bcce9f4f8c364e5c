import type { LimitStore, SlotOutcome, StrikeCount, TakeSlotRequest } from '../../core/index.ts';
import { checkLimitTtl, checkSlotRequest, LIMITS_SWEEP_EVERY_MS, MAX_STRIKE_KEYS } from '../limit-guard.ts';
import { storeNow } from '../store-clock.ts';

interface Slot {
  expiresAt: number;
  holder: string | undefined;
}

interface Strikes {
  count: number;
  lastAt: number;
  expiresAt: number;
}

/**
 * LimitStore in process memory (MemoryRunStore's, and a store of one's own
 * for tests on a clock they move). No await inside a method: each is atomic.
 */
export class MemoryLimits implements LimitStore {
  readonly #slots = new Map<string, Map<string, Slot>>();
  /** In the order of their last strike (a strike moves its key to the end): the oldest is first. */
  readonly #strikes = new Map<string, Strikes>();
  readonly #now: () => number;
  readonly #maxStrikeKeys: number;
  #sweptAt: number;

  constructor(options: { now?: () => number; maxStrikeKeys?: number } = {}) {
    this.#now = options.now ?? storeNow;
    this.#maxStrikeKeys = options.maxStrikeKeys ?? MAX_STRIKE_KEYS;
    this.#sweptAt = this.#now();
  }

  async takeSlot(request: TakeSlotRequest): Promise<SlotOutcome> {
    const limits = checkSlotRequest(request);
    const now = this.#clock();
    for (const limit of limits) {
      const slots = this.#live(limit.key, now);
      let live = 0;
      let oldest = Number.POSITIVE_INFINITY;
      for (const [id, slot] of slots ?? []) {
        if (id === request.id) continue;
        live += 1;
        oldest = Math.min(oldest, slot.expiresAt);
      }
      if (live >= limit.max)
        return { taken: false, key: limit.key, live, retryAfterMs: live === 0 ? 0 : Math.max(0, oldest - now) };
    }
    for (const limit of limits) {
      let slots = this.#slots.get(limit.key);
      if (slots === undefined) this.#slots.set(limit.key, (slots = new Map()));
      slots.set(request.id, { expiresAt: now + limit.ttlMs, holder: request.holder });
    }
    return { taken: true };
  }

  async renewSlots(request: { holder: string; ttlMs: number }): Promise<number> {
    checkLimitTtl(request.ttlMs, 'the renewal ttlMs');
    const now = this.#clock();
    let renewed = 0;
    for (const slots of this.#slots.values()) {
      for (const slot of slots.values()) {
        if (slot.holder !== request.holder || slot.expiresAt <= now) continue;
        slot.expiresAt = now + request.ttlMs;
        renewed += 1;
      }
    }
    return renewed;
  }

  async releaseSlot(id: string): Promise<void> {
    for (const [key, slots] of this.#slots) {
      slots.delete(id);
      if (slots.size === 0) this.#slots.delete(key);
    }
  }

  async addStrike(request: { key: string; forgetAfterMs: number }): Promise<StrikeCount> {
    checkLimitTtl(request.forgetAfterMs, 'forgetAfterMs');
    const now = this.#clock();
    const previous = this.#strikes.get(request.key);
    const count = previous === undefined || previous.expiresAt <= now ? 1 : previous.count + 1;
    this.#strikes.delete(request.key);
    if (this.#strikes.size >= this.#maxStrikeKeys) this.#sweep(now);
    for (const oldest of this.#strikes.keys()) {
      if (this.#strikes.size < this.#maxStrikeKeys) break;
      this.#strikes.delete(oldest);
    }
    this.#strikes.set(request.key, { count, lastAt: now, expiresAt: now + request.forgetAfterMs });
    return { count, sinceLastMs: 0 };
  }

  async readStrikes(keys: readonly string[]): Promise<Record<string, StrikeCount>> {
    const now = this.#clock();
    const found: Record<string, StrikeCount> = {};
    for (const key of keys) {
      const strikes = this.#strikes.get(key);
      if (strikes !== undefined && strikes.expiresAt > now)
        found[key] = { count: strikes.count, sinceLastMs: Math.max(0, now - strikes.lastAt) };
    }
    return found;
  }

  /** Now, sweeping everything expired once per LIMITS_SWEEP_EVERY_MS. */
  #clock(): number {
    const now = this.#now();
    if (now - this.#sweptAt >= LIMITS_SWEEP_EVERY_MS) this.#sweep(now);
    return now;
  }

  #live(key: string, now: number): Map<string, Slot> | undefined {
    const slots = this.#slots.get(key);
    if (slots === undefined) return undefined;
    for (const [id, slot] of slots) if (slot.expiresAt <= now) slots.delete(id);
    if (slots.size === 0) this.#slots.delete(key);
    return slots;
  }

  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const key of [...this.#slots.keys()]) this.#live(key, now);
    for (const [key, strikes] of this.#strikes) if (strikes.expiresAt <= now) this.#strikes.delete(key);
  }
}
