import { ToolgateError, type ClaimOptions, type Run, type RunLease } from '../../core/index.ts';
import { checkClaimOptions, checkTtl } from '../lease-guard.ts';
import { leaseFromRow, runFromRow } from '../sql/run-row.ts';
import { storeNow } from '../store-clock.ts';
import { CLAIM_NEXT, CLAIM_RUN, RELEASE_LEASE, RENEW_LEASE, SELECT_RUN } from './run-statements.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/**
 * SqliteRunStore's leases. Each operation runs in one IMMEDIATE transaction
 * and reads the clock only once it holds the write lock, so a wait for another
 * process's lock never makes it judge expiry by a stale time.
 */
export class SqliteLeases {
  readonly #sql: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#sql = connection;
  }

  claimRun(runId: string, options: ClaimOptions): RunLease | undefined {
    checkClaimOptions(options);
    return this.#sql.transaction(`claim run ${runId}`, () => this.claimLocked(runId, options));
  }

  /** claimRun's work, inside a write transaction the caller holds (createAndClaimRun's). */
  claimLocked(runId: string, options: ClaimOptions): RunLease | undefined {
    const now = storeNow();
    const row = this.#sql
      .statement(CLAIM_RUN)
      .get({ id: runId, owner: options.owner, now, expires_at: now + options.ttlMs });
    if (row !== undefined) return leaseFromRow(row, 'sqlite');
    if (this.#sql.statement('SELECT 1 FROM runs WHERE id = ?').get(runId) === undefined) {
      throw new ToolgateError('not_found', `run ${runId} does not exist`);
    }
    return undefined;
  }

  claimNext(options: ClaimOptions & { limit: number }): RunLease[] {
    checkClaimOptions(options);
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    return this.#sql.transaction('claim runs that need an owner', () => {
      const now = storeNow();
      const rows = this.#sql
        .statement(CLAIM_NEXT)
        .all({ owner: options.owner, now, expires_at: now + options.ttlMs, limit });
      // RETURNING has no order of its own: oldest first, as they were picked.
      rows.sort((a, b) => compareText(a['created_at'], b['created_at']) || compareText(a['id'], b['id']));
      return rows.map((row) => leaseFromRow(row, 'sqlite'));
    });
  }

  renewLease(lease: RunLease, ttlMs: number): RunLease | undefined {
    checkTtl(ttlMs);
    return this.#sql.transaction(`renew the lease of run ${lease.runId}`, () => {
      const params = { id: lease.runId, owner: lease.owner, epoch: lease.epoch, expires_at: storeNow() + ttlMs };
      const row = this.#sql.statement(RENEW_LEASE).get(params);
      return row === undefined ? undefined : leaseFromRow(row, 'sqlite');
    });
  }

  releaseRun(lease: RunLease): Run | undefined {
    return this.#sql.transaction(`release run ${lease.runId}`, () => {
      this.#sql.statement(RELEASE_LEASE).run({ id: lease.runId, owner: lease.owner, epoch: lease.epoch });
      const row = this.#sql.statement(SELECT_RUN).get(lease.runId);
      return row === undefined ? undefined : runFromRow(row, 'sqlite');
    });
  }
}

function compareText(a: unknown, b: unknown): number {
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
