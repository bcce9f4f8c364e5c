import { RUN_COLUMNS, RUN_FIELDS } from '../sql/run-row.ts';
import { IMPORT_COLUMNS, insertRunSql } from '../sql/run-sql.ts';

export const INSERT_RUN = insertRunSql('sqlite', RUN_COLUMNS);

export const INSERT_IMPORTED_RUN = insertRunSql('sqlite', IMPORT_COLUMNS);

export const SELECT_RUN = `SELECT ${RUN_FIELDS} FROM runs WHERE id = ?`;

export const SELECT_APPEND_STATE =
  'SELECT last_event_id, status, ended_by, lease_owner, lease_epoch, lease_expires_at FROM runs WHERE id = ?';

// Leases. A lease is live while lease_expires_at >= :now; owner and expiry are
// set and cleared together, and lease_epoch only grows (it fences appends).
// Every claim is one UPDATE … RETURNING inside an IMMEDIATE transaction: the
// write lock is taken before the row is read, so two connections (processes)
// can never both see a run as free.
const ENDED = "(status IN ('completed', 'failed', 'cancelled') OR ended_by IS NOT NULL)";
const CLAIM_SET = 'lease_owner = :owner, lease_epoch = lease_epoch + 1, lease_expires_at = :expires_at';

/** claimRun: free, expired, or already this owner's; never an ended run. */
export const CLAIM_RUN = `UPDATE runs SET ${CLAIM_SET}
WHERE id = :id AND NOT ${ENDED}
  AND (lease_owner IS NULL OR lease_expires_at < :now OR lease_owner = :owner)
RETURNING id, lease_owner, lease_epoch, lease_expires_at`;

/**
 * claimNext: the oldest queued or running runs with no live lease (lease_owner
 * NULL ⇔ lease_expires_at NULL), claimed in one statement. SQLite has one
 * writer at a time, so the IMMEDIATE transaction alone keeps two callers from
 * taking the same run. PostgreSQL does the same with row locks instead:
 *   WITH picked AS (SELECT id FROM runs WHERE <same filter> ORDER BY created_at, id
 *                   LIMIT $n FOR UPDATE SKIP LOCKED)
 *   UPDATE runs SET <same SET> FROM picked WHERE runs.id = picked.id RETURNING …
 * so a run another caller is claiming is skipped rather than waited for.
 * RETURNING gives no order: the caller sorts by (created_at, id).
 */
export const CLAIM_NEXT = `UPDATE runs SET ${CLAIM_SET}
WHERE id IN (
  SELECT id FROM runs
  WHERE status IN ('queued', 'running', 'planning', 'executing', 'monitoring', 'reflecting') AND ended_by IS NULL
    AND (lease_expires_at IS NULL OR lease_expires_at < :now)
  ORDER BY created_at, id
  LIMIT :limit
)
RETURNING id, created_at, lease_owner, lease_epoch, lease_expires_at`;

/** renewLease: only the holder (owner and epoch), expired or not; nobody re-claimed it, or the epoch would differ. */
export const RENEW_LEASE = `UPDATE runs SET lease_expires_at = :expires_at
WHERE id = :id AND lease_owner = :owner AND lease_epoch = :epoch
RETURNING id, lease_owner, lease_epoch, lease_expires_at`;

/** releaseRun: clears owner and expiry if still held; the epoch stays. */
export const RELEASE_LEASE = `UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND lease_owner = :owner AND lease_epoch = :epoch`;

export const INSERT_EVENT = 'INSERT INTO events (run_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)';

export const SELECT_KEY =
  'SELECT request_hash, run_id, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?';

export const UPSERT_KEY =
  `INSERT INTO idempotency_keys (tenant_id, key, ` +
  `request_hash, run_id, expires_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (tenant_id, key) DO UPDATE SET
    request_hash = excluded.request_hash, run_id = excluded.run_id, expires_at = excluded.expires_at`;

// Threads are keyed by (tenant, id); '' is the tenant of callers without one.
export const SELECT_THREAD = 'SELECT id, tenant_id, created_at, updated_at FROM threads WHERE tenant_id = ? AND id = ?';

export const SELECT_THREAD_MESSAGES =
  'SELECT message FROM thread_messages WHERE tenant_id = ? AND thread_id = ? ORDER BY seq';

export const UPSERT_THREAD = `INSERT INTO threads (tenant_id, id, created_at, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (tenant_id, id) DO UPDATE SET updated_at = excluded.updated_at`;

export const LAST_THREAD_SEQ =
  'SELECT COALESCE(MAX(seq), 0) AS last FROM thread_messages WHERE tenant_id = ? AND thread_id = ?';

export const INSERT_THREAD_MESSAGE =
  'INSERT INTO thread_messages (tenant_id, thread_id, seq, message) VALUES (?, ?, ?, ?)';
