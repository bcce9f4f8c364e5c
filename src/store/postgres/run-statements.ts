import { ACTIVE_RUN_STATUSES, TERMINAL_RUN_STATUSES } from '../../core/index.ts';
import { RUN_COLUMNS, RUN_FIELDS } from '../sql/run-row.ts';
import { IMPORT_COLUMNS, insertRunSql } from '../sql/run-sql.ts';
import { columnList, placeholders } from '../sql/sql-dialect.ts';

/**
 * The channel appends NOTIFY on, with the payload `<runId>:<lastEventId>`.
 * Channels are per database, not per schema: stores in two schemas of one
 * database hear each other, which at worst wakes a watcher of the same run id
 * for nothing (watch allows spurious wake-ups).
 */
export const EVENTS_CHANNEL = 'toolgate_events';

/** Milliseconds since the Unix epoch of a timestamptz expression, floored (as Date.now() does). */
export function msOf(expression: string): string {
  return `floor(extract(epoch FROM ${expression}) * 1000)::float8`;
}

function sqlList(values: Iterable<string>): string {
  return [...values].map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');
}

// Row stamps (created_at, updated_at) take the database clock, so every
// instance sorts runs the same way; statement_timestamp() is one value per
// statement, which makes a new run's createdAt equal its updatedAt.
const STAMP = "date_trunc('milliseconds', statement_timestamp())";

/** A new run's columns but its stamps, bound in this order (see newRunValues). */
export const NEW_RUN_COLUMNS = RUN_COLUMNS.filter((column) => column.kind !== 'time');

export const INSERT_RUN = `INSERT INTO runs (${columnList(NEW_RUN_COLUMNS)}, created_at, updated_at)
VALUES (${placeholders('postgres', NEW_RUN_COLUMNS)}, ${STAMP}, ${STAMP})
ON CONFLICT (id) DO NOTHING
RETURNING ${RUN_FIELDS}`;

export const INSERT_IMPORTED_RUN = `${insertRunSql('postgres', IMPORT_COLUMNS)}
RETURNING id`;

export const SELECT_RUN = `SELECT ${RUN_FIELDS} FROM runs WHERE id = $1`;

/**
 * Locks the runs of a group of appends ($1: their ids) and reads what the checks need. Rows are locked in id order,
 * so two groups that share runs (two instances) wait for each other and never deadlock. The clock is read in the
 * outer SELECT, after the CTE locked that row: a wait for another writer never makes a lease look live that expired
 * meanwhile. Read committed: a locked row is its newest committed version.
 */
export const LOCK_RUNS_FOR_APPEND = `WITH locked AS MATERIALIZED (
  SELECT id, status, ended_by, last_event_id, lease_owner, lease_epoch, lease_expires_at FROM runs
  WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE
)
SELECT id, status, ended_by, last_event_id, lease_owner, lease_epoch, ${msOf('lease_expires_at')} AS lease_expires_ms,
  ${msOf('clock_timestamp()')} AS now_ms
FROM locked`;

/**
 * The writes of a group in one statement (one round trip), each part a no-op when its arrays are empty: the events
 * ($1 run ids, $2 seqs, $3 types, $4 times, $5 data as JSON texts, one element per event); the run rows of appends
 * without a patch, most steps ($6 ids, $7 last event ids, $8 times); one notification per payload ($9,
 * `<runId>:<lastEventId>` each), delivered at COMMIT in this order. Data-modifying CTEs run to completion whether or
 * not the outer query reads them.
 */
export const WRITE_GROUP = `WITH inserted AS (
  INSERT INTO events (run_id, seq, type, time, data)
  SELECT e.run_id, e.seq, e.type, e.time, e.data::json
  FROM unnest($1::text[], $2::integer[], $3::text[], $4::timestamptz[], $5::text[]) AS e(run_id, seq, type, time, data)
), advanced AS (
  UPDATE runs SET last_event_id = u.last_event_id, updated_at = u.time
  FROM unnest($6::text[], $7::integer[], $8::timestamptz[]) AS u(id, last_event_id, time) WHERE runs.id = u.id
)
SELECT pg_notify('${EVENTS_CHANNEL}', p) FROM unnest($9::text[]) AS p`;

// Leases. Expiry is judged by the database clock (clock_timestamp(), read when
// the statement runs, after any wait for a row lock), so owners on machines
// with skewed clocks agree. A lease is live while lease_expires_at >= now;
// owner and expiry are set and cleared together; lease_epoch only grows.
const TTL = (param: string): string => `clock_timestamp() + ${param}::float8 * interval '1 millisecond'`;
const LEASE_RETURNING = `id, lease_owner, lease_epoch, ${msOf('lease_expires_at')} AS lease_expires_ms`;

/** claimRun: $1 run, $2 owner, $3 ttl ms. Free, expired, or already this owner's; never an ended run. */
export const CLAIM_RUN =
  `UPDATE runs SET lease_owner = $2, lease_epoch ` +
  `= lease_epoch + 1, lease_expires_at = ${TTL('$3')}
WHERE id = $1 AND status NOT IN (${sqlList(TERMINAL_RUN_STATUSES)}) AND ended_by IS NULL
  AND (lease_owner IS NULL OR lease_expires_at < clock_timestamp() OR lease_owner = $2)
RETURNING ${LEASE_RETURNING}`;

/**
 * claimNext: $1 owner, $2 ttl ms, $3 limit. The oldest runs that need an
 * owner, locked with SKIP LOCKED: a run another caller is claiming is passed
 * over, never waited for nor claimed twice; a run claimed and committed
 * meanwhile is re-checked and dropped. Each one's epoch grows in the same statement.
 */
export const CLAIM_NEXT =
  `WITH picked AS (
  SELECT id FROM runs
  WHERE status IN (${sqlList(ACTIVE_RUN_STATUSES)}) AND ended_by IS NULL
    AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp())
  ORDER BY created_at, id
  LIMIT $3
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE runs SET lease_owner = $1, lease_epoch = runs.lease_epoch + 1, lease_expires_at = ${TTL('$2')}
  FROM picked WHERE runs.id = picked.id
  RETURNING runs.id, runs.created_at, runs.lease_owner, ` +
  `runs.lease_epoch, ${msOf('runs.lease_expires_at')} AS lease_expires_ms
)
SELECT id, lease_owner, lease_epoch, lease_expires_ms FROM claimed ORDER BY created_at, id`;

/**
 * renewLease: $1 run, $2 owner, $3 epoch, $4 ttl ms. Only the holder, expired or not: nobody re-claimed it, or the
 * epoch would differ.
 */
export const RENEW_LEASE = `UPDATE runs SET lease_expires_at = ${TTL('$4')}
WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3
RETURNING ${LEASE_RETURNING}`;

/**
 * releaseRun: $1 run, $2 owner, $3 epoch. Clears owner and expiry if still
 * held (the epoch stays) and returns the run. The outer SELECT reads the
 * snapshot before the UPDATE, which changes only lease columns a Run never shows.
 */
export const RELEASE_RUN =
  `WITH released AS (
  UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL ` +
  `WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 RETURNING id
)
SELECT ${RUN_FIELDS} FROM runs WHERE id = $1`;

// Idempotency keys: '' is the tenant of callers without one.
/**
 * $1 tenant, $2 key, $3 request hash, $4 run id, $5 ttl ms. Takes the key when
 * it is free or expired; returns no row while another request's key is live.
 * On a conflict with a key being written by a concurrent transaction, waits
 * for it to commit, so one key yields one run across all instances.
 */
export const CLAIM_KEY = `INSERT INTO idempotency_keys (tenant_id, key, request_hash, run_id, expires_at)
VALUES ($1, $2, $3, $4, ${TTL('$5')})
ON CONFLICT (tenant_id, key) DO UPDATE
  SET request_hash = excluded.request_hash, run_id = excluded.run_id, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= clock_timestamp()
RETURNING run_id`;

/** The live key's request hash and its run. */
export const SELECT_KEY_RUN = `SELECT k.request_hash, ${RUN_COLUMNS.map((column) => `r.${column.name}`).join(', ')}
FROM idempotency_keys k JOIN runs r ON r.id = k.run_id WHERE k.tenant_id = $1 AND k.key = $2`;

/**
 * Removes a bounded batch of expired keys, skipping rows others hold, so concurrent prunes never wait on each other.
 */
export const PRUNE_KEYS =
  `DELETE FROM idempotency_keys WHERE (tenant_id, key) IN (
  SELECT tenant_id, key FROM idempotency_keys WHERE expires_at <= ` +
  `clock_timestamp() ORDER BY expires_at LIMIT 100 FOR UPDATE SKIP LOCKED
)`;

// Threads are keyed by (tenant, id); '' is the tenant of callers without one.
/** $1 tenant, $2 id. The row and its messages come from one statement, so from one snapshot. */
export const SELECT_THREAD =
  `SELECT t.tenant_id, t.id, t.created_at, t.updated_at,
  COALESCE((SELECT json_agg(m.message ORDER BY m.seq) FROM thread_messages m ` +
  `WHERE m.tenant_id = t.tenant_id AND m.thread_id = t.id), '[]'::json) AS messages
FROM threads t WHERE t.tenant_id = $1 AND t.id = $2`;

/** Creates the thread or moves its updated_at; the row lock it takes orders concurrent appends to one thread. */
export const UPSERT_THREAD =
  `INSERT INTO threads (tenant_id, id, created_at, ` +
  `updated_at) VALUES ($1, $2, ${STAMP}, ${STAMP})
ON CONFLICT (tenant_id, id) DO UPDATE SET updated_at = excluded.updated_at`;

/** $1 tenant, $2 thread, $3 messages (JSON texts), numbered after the thread's last one. */
export const INSERT_THREAD_MESSAGES =
  `INSERT INTO thread_messages (tenant_id, thread_id, seq, message)
SELECT $1, $2, (SELECT COALESCE(MAX(seq), 0) FROM thread_messages WHERE ` +
  `tenant_id = $1 AND thread_id = $2) + m.ord::integer, m.message::json
FROM unnest($3::text[]) WITH ORDINALITY AS m(message, ord)`;
