import {
  ToolgateError,
  type AppendOptions,
  type EventDraft,
  type RunEventType,
  type RunPatch,
} from '../../core/index.ts';
import { checkAppend } from '../append-guard.ts';
import { checkLastEventId, checkLease } from '../lease-guard.ts';
import { storeNow } from '../store-clock.ts';
import { isRunEventType, isRunStatus } from '../stored-values.ts';
import { RowReader } from './row-reader.ts';
import { LEASE_EXPIRY } from './run-row.ts';
import { SqlParams, jsonText, type SqlDialect, type SqlRow, type SqlValue } from './sql-dialect.ts';

/** One call of RunStore.append. */
export interface AppendRequest {
  runId: string;
  drafts: readonly EventDraft[];
  patch: RunPatch;
  options: AppendOptions;
}

/** What the append goes on with once its checks passed. */
export interface AppendState {
  /** The terminal event type the batch ends the run with, if any. */
  endedBy: RunEventType | undefined;
  /** The run's last event id before the batch. */
  last: number;
  /**
   * Milliseconds since the epoch by the store's clock (PostgreSQL: the database's, read as `now_ms` under the row
   * lock).
   */
  now: number;
}

/**
 * The checks of an append on the run's row, read inside the write (status,
 * ended_by, last_event_id and the lease columns). Order: not_found, ended
 * (conflict), lease (lease_lost), expectLastEventId (conflict).
 */
export function checkAppendRow(
  row: SqlRow | undefined,
  check: { request: AppendRequest; dialect: SqlDialect },
): AppendState {
  const { request, dialect } = check;
  const { runId } = request;
  if (row === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
  const read = new RowReader(row, dialect, `run ${runId}`);
  const endedBy = checkAppend(
    runId,
    { status: read.name('status', isRunStatus), endedBy: read.optionalName('ended_by', isRunEventType) },
    request.drafts,
  );
  const now = dialect === 'postgres' ? read.integer('now_ms') : storeNow();
  const lease = request.options.lease;
  if (lease !== undefined) {
    const state = {
      owner: read.optionalText('lease_owner'),
      epoch: read.optionalInteger('lease_epoch') ?? 0,
      expiresAt: read.optionalInteger(LEASE_EXPIRY[dialect]),
    };
    checkLease(state, { runId, lease, now });
  }
  const last = read.integer('last_event_id');
  checkLastEventId(runId, last, request.options.expectLastEventId);
  return { endedBy, last, now };
}

/** What an append changes on the run's row besides the patch. */
export interface RunUpdate {
  runId: string;
  patch: RunPatch;
  endedBy: RunEventType | undefined;
  lastEventId: number;
  time: string;
}

/**
 * The UPDATE of an append: only the columns the patch sets. Setting a column,
 * even to its own value, rewrites the index entries that cover it (status is
 * indexed), and most appends change nothing but last_event_id: a statement
 * per patch shape (at most 2^7, each prepared once) keeps those commits to the
 * pages that really change.
 */
export function runUpdateSql(dialect: SqlDialect, update: RunUpdate): { sql: string; values: SqlValue[] } {
  const { patch } = update;
  const params = new SqlParams(dialect);
  const sets: string[] = [];
  if (patch.status !== undefined) sets.push(`status = ${params.bind(patch.status)}`);
  if (patch.output !== undefined) sets.push(`output = ${params.bind(patch.output)}`);
  if (patch.error !== undefined) sets.push(`error = ${params.bind(jsonText(patch.error), 'jsonb')}`);
  if (patch.usage !== undefined) sets.push(`usage = ${params.bind(jsonText(patch.usage), 'jsonb')}`);
  if (patch.steps !== undefined) sets.push(`steps = ${params.bind(patch.steps, 'integer')}`);
  // null clears a pending approval.
  if (patch.pendingApproval !== undefined)
    sets.push(`pending_approval = ${params.bind(jsonText(patch.pendingApproval), 'jsonb')}`);
  if (update.endedBy !== undefined) {
    sets.push(`ended_by = COALESCE(ended_by, ${params.bind(update.endedBy)})`);
    // An ended run needs no owner: its lease goes with the append that ended it (the epoch stays).
    sets.push('lease_owner = NULL', 'lease_expires_at = NULL');
  }
  sets.push(
    `last_event_id = ${params.bind(update.lastEventId, 'integer')}`,
    `updated_at = ${params.bind(update.time, 'time')}`,
  );
  return { sql: `UPDATE runs SET ${sets.join(', ')} WHERE id = ${params.bind(update.runId)}`, values: params.values };
}
