import type { LimitStore, SlotOutcome, StrikeCount, TakeSlotRequest } from '../../core/index.ts';
import { checkLimitTtl, checkSlotRequest, LIMITS_SWEEP_EVERY_MS, MAX_STRIKE_KEYS } from '../limit-guard.ts';
import type { PostgresConnection } from './postgres-connection.ts';

/** Now by the database clock, in milliseconds since the epoch: every instance judges expiry alike. */
const NOW = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';
/**
 * One transaction-level advisory lock per key, taken in key order (no
 * deadlock between two takes): the count and the insert of one take are
 * never interleaved with another's. The schema is part of the lock's name, so
 * stores in two schemas of one database do not wait for each other.
 */
const LOCK_KEY = "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ' limit_slots ' || $1, 0))";
// A data-modifying CTE is not visible to its own SELECT: expired slots are filtered there too.
const COUNT_OTHERS = `WITH expired AS (DELETE FROM limit_slots WHERE key = $1 AND expires_at <= ${NOW})
  SELECT count(*)::int AS live, (min(expires_at) - ${NOW})::float8 AS retry_ms
  FROM limit_slots WHERE key = $1 AND id <> $2 AND expires_at > ${NOW}`;
const UPSERT_SLOT = `INSERT INTO limit_slots (key, id, holder, expires_at) VALUES ($1, $2, $3, ${NOW} + $4::bigint)
  ON CONFLICT (key, id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`;
const RENEW =
  `UPDATE limit_slots SET expires_at = ${NOW} + $2::bigint ` + `WHERE holder = $1 AND expires_at > ${NOW} RETURNING 1`;
const RELEASE = 'DELETE FROM limit_slots WHERE id = $1';
// One statement: the conflicting row is locked, so racing strikes on one key are all counted.
const ADD_STRIKE =
  `INSERT INTO limit_strikes AS s (key, count, last_at, ` +
  `expires_at) VALUES ($1, 1, ${NOW}, ${NOW} + $2::bigint)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN s.expires_at <= excluded.last_at THEN 1 ELSE s.count + 1 END,
    last_at = excluded.last_at, expires_at = excluded.expires_at
  RETURNING count`;
const READ_STRIKES =
  `SELECT key, count, (${NOW} - last_at)::float8 AS since_ms FROM ` +
  `limit_strikes WHERE key = ANY($1::text[]) AND expires_at > ${NOW}`;
const TRIM_STRIKES =
  'DELETE FROM limit_strikes WHERE key IN (SELECT key FROM limit_strikes ORDER BY expires_at LIMIT $1)';

/** PostgresRunStore's limits, judged by the database clock. */
export class PostgresLimits implements LimitStore {
  readonly #db: PostgresConnection;
  readonly #maxStrikeKeys: number;
  #sweptAt = Date.now();

  constructor(connection: PostgresConnection, options: { maxStrikeKeys?: number } = {}) {
    this.#db = connection;
    this.#maxStrikeKeys = options.maxStrikeKeys ?? MAX_STRIKE_KEYS;
  }

  async takeSlot(request: TakeSlotRequest): Promise<SlotOutcome> {
    const limits = checkSlotRequest(request);
    this.#sweepWhenDue();
    const keys = limits.map((l) => l.key);
    return this.#db.transaction(`take a slot under ${keys.join(', ')}`, async (query) => {
      for (const key of [...keys].sort()) await query(LOCK_KEY, [key]);
      for (const limit of limits) {
        const [row] = await query(COUNT_OTHERS, [limit.key, request.id]);
        const live = Number(row?.['live'] ?? 0);
        if (live >= limit.max) {
          const retry = row?.['retry_ms'];
          return {
            taken: false,
            key: limit.key,
            live,
            retryAfterMs: retry === null || retry === undefined ? 0 : Math.max(0, Number(retry)),
          };
        }
      }
      for (const limit of limits)
        await query(UPSERT_SLOT, [limit.key, request.id, request.holder ?? null, Math.ceil(limit.ttlMs)]);
      return { taken: true };
    });
  }

  async renewSlots(request: { holder: string; ttlMs: number }): Promise<number> {
    checkLimitTtl(request.ttlMs, 'the renewal ttlMs');
    return (
      await this.#db.query(`renew the slots of ${request.holder}`, RENEW, [request.holder, Math.ceil(request.ttlMs)])
    ).length;
  }

  async releaseSlot(id: string): Promise<void> {
    await this.#db.query(`release slot ${id}`, RELEASE, [id]);
  }

  async addStrike(request: { key: string; forgetAfterMs: number }): Promise<StrikeCount> {
    checkLimitTtl(request.forgetAfterMs, 'forgetAfterMs');
    this.#sweepWhenDue();
    const [row] = await this.#db.query('count a failed attempt', ADD_STRIKE, [
      request.key,
      Math.ceil(request.forgetAfterMs),
    ]);
    return { count: Number(row?.['count'] ?? 1), sinceLastMs: 0 };
  }

  async readStrikes(keys: readonly string[]): Promise<Record<string, StrikeCount>> {
    const found: Record<string, StrikeCount> = {};
    if (keys.length === 0) return found;
    for (const row of await this.#db.read('read failed attempts', READ_STRIKES, [[...keys]])) {
      found[String(row['key'])] = { count: Number(row['count']), sinceLastMs: Math.max(0, Number(row['since_ms'])) };
    }
    return found;
  }

  /** Removes expired slots and forgotten strikes, then the strikes nearest to being forgotten beyond the bound. */
  async sweep(): Promise<void> {
    this.#sweptAt = Date.now();
    await this.#db.transaction('remove expired limits', async (query) => {
      await query(`DELETE FROM limit_slots WHERE expires_at <= ${NOW}`);
      await query(`DELETE FROM limit_strikes WHERE expires_at <= ${NOW}`);
      const [row] = await query('SELECT count(*)::int AS n FROM limit_strikes');
      const over = Number(row?.['n'] ?? 0) - this.#maxStrikeKeys;
      if (over > 0) await query(TRIM_STRIKES, [over]);
    });
  }

  /** In the background: a request never waits for the sweep; a failed one is tried again a sweep interval later. */
  #sweepWhenDue(): void {
    if (Date.now() - this.#sweptAt < LIMITS_SWEEP_EVERY_MS || this.#db.closed) return;
    void this.sweep().catch(() => undefined);
  }
}
