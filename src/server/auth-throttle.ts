import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BlockList } from 'node:net';
import { ToolgateError } from '../core/errors.ts';
import type { LimitStore, StrikeCount } from '../core/ports/limit-store.ts';
import { describeError } from '../core/describe-error.ts';
import { clientAddress } from './client-address.ts';

/** Failed authentications an address (or a key prefix) may make before it must wait. */
export const DEFAULT_AUTH_FREE_FAILURES = 5;
/** The first wait; each further failure doubles it. */
export const DEFAULT_AUTH_BASE_DELAY_MS = 1000;
/** The longest wait. */
export const DEFAULT_AUTH_MAX_DELAY_MS = 15 * 60_000;
/** Failures are forgotten this long after the last one. */
export const DEFAULT_AUTH_FORGET_AFTER_MS = 60 * 60_000;
/**
 * Characters of a presented key counted together: a guesser varying the rest of one key is one guesser, from any
 * address.
 */
export const KEY_PREFIX_LENGTH = 8;
/**
 * How long "no failures" read from the store is trusted before it is read
 * again: a client that never fails costs one read a second, not one per
 * request. A key with failures is read every time (another instance may be
 * adding to them).
 */
const CLEAN_REUSE_MS = 1000;
/** Clean keys remembered; the memory is emptied when full. */
const MAX_REMEMBERED = 10_000;
/** At most one log line per this long about a store that cannot count. */
const STORE_ERROR_EVERY_MS = 10_000;

/** `server.authBackoff`. */
export interface AuthBackoffSettings {
  freeFailures?: number | undefined;
  baseDelayMs?: number | undefined;
  maxDelayMs?: number | undefined;
  forgetAfterMs?: number | undefined;
}

/** What the throttle tells the server's log and metrics. */
export type AuthThrottleEvent =
  | { type: 'failure'; via: 'bearer' | 'sign_in'; address: string; keyPrefix: string; failures: number }
  | { type: 'throttled'; limit: 'address' | 'key_prefix'; address: string; retryAfterSeconds: number };

export interface AuthThrottleOptions extends AuthBackoffSettings {
  /** Where failures are counted: the run store's, so every instance on it sees them. */
  limits: LimitStore;
  /** Peers whose X-Forwarded-For is believed (`server.trustedProxies`). */
  trustedProxies?: BlockList | undefined;
  onEvent?: ((event: AuthThrottleEvent) => void) | undefined;
  onError?: ((message: string) => void) | undefined;
  now?: (() => number) | undefined;
}

interface Remembered extends StrikeCount {
  readAt: number;
}

/**
 * Makes guessing API keys slow. Failed authentications are counted per client
 * address and per key prefix, in the store. Past `freeFailures`, an address
 * must wait (base × 2ⁿ, up to the maximum) before any key it presents is even
 * compared — a correct one too, or a locked address could still tell a right
 * guess from a wrong one. A prefix past its free failures is refused to
 * addresses that have failed themselves, so many addresses guessing one key
 * get one try each; a client that has not failed (the key's owner, elsewhere)
 * is never locked out by someone else's guesses.
 */
export class AuthThrottle {
  readonly #options: AuthThrottleOptions;
  readonly #free: number;
  readonly #base: number;
  readonly #max: number;
  readonly #forget: number;
  readonly #now: () => number;
  /** Keys read as having no failures, and when. */
  readonly #clean = new Map<string, number>();
  #storeErrorAt = Number.NEGATIVE_INFINITY;

  constructor(options: AuthThrottleOptions) {
    this.#options = options;
    this.#free = options.freeFailures ?? DEFAULT_AUTH_FREE_FAILURES;
    this.#base = options.baseDelayMs ?? DEFAULT_AUTH_BASE_DELAY_MS;
    this.#max = options.maxDelayMs ?? DEFAULT_AUTH_MAX_DELAY_MS;
    this.#forget = options.forgetAfterMs ?? Math.max(DEFAULT_AUTH_FORGET_AFTER_MS, this.#max);
    this.#now = options.now ?? Date.now;
    if (!Number.isInteger(this.#free) || this.#free < 0)
      throw invalid(`freeFailures must be a whole number ≥ 0, got ${this.#free}`);
    if (!(this.#base >= 1)) throw invalid(`baseDelayMs must be at least 1, got ${this.#base}`);
    if (!(this.#max >= this.#base))
      throw invalid(`maxDelayMs (${this.#max}) must be at least baseDelayMs (${this.#base})`);
    if (!(this.#forget >= this.#max))
      throw invalid(
        `forgetAfterMs (${this.#forget}) must be at least maxDelayMs ` +
          `(${this.#max}): failures forgotten sooner would end the longest wait early`,
      );
  }

  /** The address failures of `req` count under. */
  address(req: IncomingMessage): string {
    return clientAddress(req, this.#options.trustedProxies);
  }

  /**
   * Before a presented key is compared: refuses (429) an address that must wait, or a locked prefix to an address that
   * has failed.
   */
  async admit(req: IncomingMessage, presented: string): Promise<void> {
    const address = this.address(req);
    const keys = { address: `auth/address/${address}`, prefix: prefixKey(presented) };
    let counts: Record<string, Remembered>;
    try {
      counts = await this.#read([keys.address, keys.prefix]);
    } catch (error) {
      // The store cannot count now: keys are compared as usual rather than refused to everyone.
      this.#storeError(error);
      return;
    }
    const own = counts[keys.address];
    const ownWait = this.#waitOf(own);
    if (ownWait > 0) throw this.#refusal({ limit: 'address', address, waitMs: ownWait });
    const prefixWait = this.#waitOf(counts[keys.prefix]);
    if (prefixWait > 0 && (own?.count ?? 0) > 0)
      throw this.#refusal({ limit: 'key_prefix', address, waitMs: prefixWait });
  }

  /**
   * Counts a wrong key; resolves the 429 to answer when this failure makes the address wait, else undefined (answer
   * 401).
   */
  async failed(req: IncomingMessage, presented: string, via: 'bearer' | 'sign_in'): Promise<ToolgateError | undefined> {
    const address = this.address(req);
    const keys = { address: `auth/address/${address}`, prefix: prefixKey(presented) };
    const strike = (key: string): Promise<StrikeCount> =>
      this.#options.limits.addStrike({ key, forgetAfterMs: this.#forget });
    let ofAddress: StrikeCount;
    try {
      // The prefix's count is read when a key with that start is next presented (admit).
      [ofAddress] = await Promise.all([strike(keys.address), strike(keys.prefix)]);
    } catch (error) {
      this.#storeError(error);
      return undefined;
    }
    const now = this.#now();
    this.#clean.delete(keys.address);
    this.#clean.delete(keys.prefix);
    // The first characters say which key was aimed at; more would put a real key's start in the log when its owner
    // mistypes the end.
    this.#options.onEvent?.({
      type: 'failure',
      via,
      address,
      keyPrefix: `${presented.slice(0, 4)}…`,
      failures: ofAddress.count,
    });
    const wait = this.#waitOf({ ...ofAddress, readAt: now });
    return wait > 0 ? this.#refusal({ limit: 'address', address, waitMs: wait }) : undefined;
  }

  /** How long a count must still wait (0: it may try). */
  #waitOf(count: Remembered | undefined): number {
    if (count === undefined || count.count <= this.#free) return 0;
    const delay = Math.min(this.#max, this.#base * 2 ** (count.count - this.#free - 1));
    const since = count.sinceLastMs + (this.#now() - count.readAt);
    return Math.max(0, delay - since);
  }

  #refusal(input: { limit: 'address' | 'key_prefix'; address: string; waitMs: number }): ToolgateError {
    const retryAfterSeconds = Math.max(1, Math.ceil(input.waitMs / 1000));
    this.#options.onEvent?.({ type: 'throttled', limit: input.limit, address: input.address, retryAfterSeconds });
    const why =
      input.limit === 'address'
        ? 'too many failed authentications from your address'
        : 'too many failed authentications with keys that start like this one, and your address has failed too';
    return new ToolgateError(
      'rate_limited',
      `${why}: retry after ${retryAfterSeconds} s with the key configured for ` +
        `your tenant (tenants.<id>.apiKeys); each further failure doubles the wait`,
      {
        details: { retryAfterSeconds, limit: input.limit },
      },
    );
  }

  async #read(keys: readonly string[]): Promise<Record<string, Remembered>> {
    const now = this.#now();
    const found: Record<string, Remembered> = {};
    const stale = keys.filter((key) => {
      const cleanAt = this.#clean.get(key);
      return cleanAt === undefined || now - cleanAt > CLEAN_REUSE_MS;
    });
    if (stale.length === 0) return found;
    const read = await this.#options.limits.readStrikes(stale);
    for (const key of stale) {
      const count = read[key];
      if (count !== undefined && count.count > 0) {
        this.#clean.delete(key);
        found[key] = { ...count, readAt: now };
        continue;
      }
      if (this.#clean.size >= MAX_REMEMBERED) this.#clean.clear();
      this.#clean.set(key, now);
    }
    return found;
  }

  #storeError(error: unknown): void {
    const now = this.#now();
    if (now - this.#storeErrorAt < STORE_ERROR_EVERY_MS) return;
    this.#storeErrorAt = now;
    this.#options.onError?.(
      `failed authentications cannot be counted (keys are compared without backoff meanwhile): ${describeError(error)}`,
    );
  }
}

/** The key a prefix counts under: hashed, so the store never holds the start of a key. */
function prefixKey(presented: string): string {
  return (
    `auth/key-prefix/` +
    `${createHash('sha256').update(presented.slice(0, KEY_PREFIX_LENGTH), 'utf8').digest('base64url').slice(0, 22)}`
  );
}

function invalid(message: string): ToolgateError {
  return new ToolgateError('config_invalid', `server.authBackoff: ${message}`);
}
