import { ToolgateError, type ClaimOptions, type Run, type RunLease } from '../../core/index.ts';
import { checkClaimOptions, checkTtl } from '../lease-guard.ts';
import { leaseFromRow, runFromRow } from '../sql/run-row.ts';
import type { PostgresConnection } from './postgres-connection.ts';
import { CLAIM_NEXT, CLAIM_RUN, RELEASE_RUN, RENEW_LEASE } from './run-statements.ts';

/**
 * PostgresRunStore's leases. Each operation is one statement: its row locks
 * make it atomic across instances, and it judges expiry by the database clock
 * (see run-statements.ts), never by this machine's.
 */
export class PostgresLeases {
  readonly #db: PostgresConnection;

  constructor(connection: PostgresConnection) {
    this.#db = connection;
  }

  async claimRun(runId: string, options: ClaimOptions): Promise<RunLease | undefined> {
    this.#db.assertOpen();
    checkClaimOptions(options);
    const action = `claim run ${runId}`;
    const [row] = await this.#db.query(action, CLAIM_RUN, [runId, options.owner, options.ttlMs]);
    if (row !== undefined) return leaseFromRow(row, 'postgres');
    const exists = await this.#db.read(action, 'SELECT 1 FROM runs WHERE id = $1', [runId]);
    if (exists.length === 0) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    return undefined;
  }

  async claimNext(options: ClaimOptions & { limit: number }): Promise<RunLease[]> {
    this.#db.assertOpen();
    checkClaimOptions(options);
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const rows = await this.#db.query('claim runs that need an owner', CLAIM_NEXT, [
      options.owner,
      options.ttlMs,
      limit,
    ]);
    return rows.map((row) => leaseFromRow(row, 'postgres'));
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<RunLease | undefined> {
    this.#db.assertOpen();
    checkTtl(ttlMs);
    const [row] = await this.#db.query(`renew the lease of run ${lease.runId}`, RENEW_LEASE, [
      lease.runId,
      lease.owner,
      lease.epoch,
      ttlMs,
    ]);
    return row === undefined ? undefined : leaseFromRow(row, 'postgres');
  }

  async releaseRun(lease: RunLease): Promise<Run | undefined> {
    this.#db.assertOpen();
    const [row] = await this.#db.query(`release run ${lease.runId}`, RELEASE_RUN, [
      lease.runId,
      lease.owner,
      lease.epoch,
    ]);
    return row === undefined ? undefined : runFromRow(row, 'postgres');
  }
}
