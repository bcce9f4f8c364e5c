import type { LimitStore, SlotOutcome, StrikeCount, TakeSlotRequest } from '../../core/index.ts';
import { checkLimitTtl, checkSlotRequest, LIMITS_SWEEP_EVERY_MS, MAX_STRIKE_KEYS } from '../limit-guard.ts';
import { storeNow } from '../store-clock.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

const DELETE_EXPIRED_OF_KEY = 'DELETE FROM limit_slots WHERE key = ? AND expires_at <= ?';
const COUNT_OTHERS = 'SELECT count(*) AS live, min(expires_at) AS oldest FROM limit_slots WHERE key = ? AND id <> ?';
const UPSERT_SLOT = `INSERT INTO limit_slots (key, id, holder, expires_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (key, id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`;
const RENEW = 'UPDATE limit_slots SET expires_at = ? WHERE holder = ? AND expires_at > ?';
const RELEASE = 'DELETE FROM limit_slots WHERE id = ?';
// A count whose last strike is older than its forget time starts again at 1.
const ADD_STRIKE = `INSERT INTO limit_strikes (key, count, last_at, expires_at) VALUES (?, 1, ?, ?)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN limit_strikes.expires_at <= excluded.last_at THEN 1 ELSE limit_strikes.count + 1 END,
    last_at = excluded.last_at, expires_at = excluded.expires_at
  RETURNING count`;
const READ_STRIKE = 'SELECT count, last_at FROM limit_strikes WHERE key = ? AND expires_at > ?';
const TRIM_STRIKES =
  'DELETE FROM limit_strikes WHERE key IN (SELECT key FROM limit_strikes ORDER BY expires_at LIMIT ?)';

/**
 * SqliteRunStore's limits. A take counts and inserts in one IMMEDIATE
 * transaction, so processes sharing the file never both fill the last place;
 * a strike is one upsert.
 */
export class SqliteLimits implements LimitStore {
  readonly #sql: SqliteConnection;
  readonly #maxStrikeKeys: number;
  #sweptAt = storeNow();

  constructor(connection: SqliteConnection, options: { maxStrikeKeys?: number } = {}) {
    this.#sql = connection;
    this.#maxStrikeKeys = options.maxStrikeKeys ?? MAX_STRIKE_KEYS;
  }

  async takeSlot(request: TakeSlotRequest): Promise<SlotOutcome> {
    const limits = checkSlotRequest(request);
    this.#sweepWhenDue();
    return this.#sql.transaction(`take a slot under ${limits.map((l) => l.key).join(', ')}`, () => {
      const now = storeNow();
      for (const limit of limits) {
        this.#sql.statement(DELETE_EXPIRED_OF_KEY).run(limit.key, now);
        const row = this.#sql.statement(COUNT_OTHERS).get(limit.key, request.id);
        const live = Number(row?.['live'] ?? 0);
        if (live >= limit.max) {
          const oldest = row?.['oldest'];
          return {
            taken: false,
            key: limit.key,
            live,
            retryAfterMs: oldest === null || oldest === undefined ? 0 : Math.max(0, Number(oldest) - now),
          };
        }
      }
      for (const limit of limits)
        this.#sql.statement(UPSERT_SLOT).run(limit.key, request.id, request.holder ?? null, now + limit.ttlMs);
      return { taken: true };
    });
  }

  async renewSlots(request: { holder: string; ttlMs: number }): Promise<number> {
    checkLimitTtl(request.ttlMs, 'the renewal ttlMs');
    return this.#sql.run(`renew the slots of ${request.holder}`, () => {
      const now = storeNow();
      return Number(this.#sql.statement(RENEW).run(now + request.ttlMs, request.holder, now).changes);
    });
  }

  async releaseSlot(id: string): Promise<void> {
    this.#sql.run(`release slot ${id}`, () => this.#sql.statement(RELEASE).run(id));
  }

  async addStrike(request: { key: string; forgetAfterMs: number }): Promise<StrikeCount> {
    checkLimitTtl(request.forgetAfterMs, 'forgetAfterMs');
    this.#sweepWhenDue();
    return this.#sql.run('count a failed attempt', () => {
      const now = storeNow();
      const row = this.#sql.statement(ADD_STRIKE).get(request.key, now, now + request.forgetAfterMs);
      return { count: Number(row?.['count'] ?? 1), sinceLastMs: 0 };
    });
  }

  async readStrikes(keys: readonly string[]): Promise<Record<string, StrikeCount>> {
    return this.#sql.run('read failed attempts', () => {
      const now = storeNow();
      const found: Record<string, StrikeCount> = {};
      for (const key of keys) {
        const row = this.#sql.statement(READ_STRIKE).get(key, now);
        if (row !== undefined)
          found[key] = { count: Number(row['count']), sinceLastMs: Math.max(0, now - Number(row['last_at'])) };
      }
      return found;
    });
  }

  /** Removes expired slots and forgotten strikes, then the strikes nearest to being forgotten beyond the bound. */
  sweep(): void {
    this.#sql.transaction('remove expired limits', () => {
      const now = storeNow();
      this.#sweptAt = now;
      this.#sql.statement('DELETE FROM limit_slots WHERE expires_at <= ?').run(now);
      this.#sql.statement('DELETE FROM limit_strikes WHERE expires_at <= ?').run(now);
      const over =
        Number(this.#sql.statement('SELECT count(*) AS n FROM limit_strikes').get()?.['n'] ?? 0) - this.#maxStrikeKeys;
      if (over > 0) this.#sql.statement(TRIM_STRIKES).run(over);
    });
  }

  #sweepWhenDue(): void {
    if (storeNow() - this.#sweptAt >= LIMITS_SWEEP_EVERY_MS) this.sweep();
  }
}
