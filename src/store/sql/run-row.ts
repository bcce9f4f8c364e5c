import { isJsonObject, type Run, type RunLease } from '../../core/index.ts';
import { isErrorInfo, isPendingApproval, isRunSettings, isRunStatus, isUsage } from '../stored-values.ts';
import { RowReader } from './row-reader.ts';
import { columnList, jsonText, type Column, type SqlDialect, type SqlRow, type SqlValue } from './sql-dialect.ts';

/** The columns of `runs` a Run shows (never the lease, nor ended_by), in one order for every statement. */
export const RUN_COLUMNS = [
  { name: 'id', kind: 'text' },
  { name: 'tenant_id', kind: 'text' },
  { name: 'user_id', kind: 'text' },
  { name: 'thread_id', kind: 'text' },
  { name: 'status', kind: 'text' },
  { name: 'input', kind: 'text' },
  { name: 'model', kind: 'text' },
  { name: 'output', kind: 'text' },
  { name: 'error', kind: 'jsonb' },
  { name: 'usage', kind: 'jsonb' },
  { name: 'steps', kind: 'integer' },
  { name: 'last_event_id', kind: 'integer' },
  { name: 'metadata', kind: 'jsonb' },
  { name: 'context', kind: 'jsonb' },
  { name: 'dry_run', kind: 'boolean' },
  { name: 'settings', kind: 'jsonb' },
  { name: 'pending_approval', kind: 'jsonb' },
  { name: 'created_at', kind: 'time' },
  { name: 'updated_at', kind: 'time' },
] as const satisfies readonly Column[];

export type RunColumn = (typeof RUN_COLUMNS)[number]['name'];

/** `id, tenant_id, …` for a SELECT or RETURNING of a whole Run. */
export const RUN_FIELDS = columnList(RUN_COLUMNS);

/** A run's row, column by column; JSON as text, absent fields as SQL NULL. */
export function runRow(run: Run): Record<RunColumn, SqlValue> {
  return {
    id: run.id,
    tenant_id: run.tenantId ?? null,
    user_id: run.userId ?? null,
    thread_id: run.threadId ?? null,
    status: run.status,
    input: run.input,
    model: run.model,
    output: run.output ?? null,
    error: jsonText(run.error),
    usage: JSON.stringify(run.usage),
    steps: run.steps,
    last_event_id: run.lastEventId,
    metadata: jsonText(run.metadata),
    context: jsonText(run.context),
    dry_run: run.dryRun ?? null,
    settings: jsonText(run.settings),
    pending_approval: jsonText(run.pendingApproval),
    created_at: run.createdAt,
    updated_at: run.updatedAt,
  };
}

/** The values of `columns` in a row built by runRow, in their order. */
export function rowValues<C extends string>(
  row: Readonly<Record<C, SqlValue>>,
  columns: readonly { readonly name: C }[],
): SqlValue[] {
  return columns.map((column) => row[column.name]);
}

export function runFromRow(row: SqlRow, dialect: SqlDialect): Run {
  const read = new RowReader(row, dialect, `run ${String(row['id'])}`);
  const run: Run = {
    id: read.text('id'),
    status: read.name('status', isRunStatus),
    input: read.text('input'),
    model: read.text('model'),
    createdAt: read.time('created_at'),
    updatedAt: read.time('updated_at'),
    usage: read.json('usage', isUsage),
    steps: read.integer('steps'),
    lastEventId: read.integer('last_event_id'),
  };
  const tenantId = read.optionalText('tenant_id');
  if (tenantId !== undefined) run.tenantId = tenantId;
  const userId = read.optionalText('user_id');
  if (userId !== undefined) run.userId = userId;
  const threadId = read.optionalText('thread_id');
  if (threadId !== undefined) run.threadId = threadId;
  const output = read.optionalText('output');
  if (output !== undefined) run.output = output;
  const error = read.optionalJson('error', isErrorInfo);
  if (error !== undefined) run.error = error;
  const metadata = read.optionalJson('metadata', isJsonObject);
  if (metadata !== undefined) run.metadata = metadata;
  const context = read.optionalJson('context', isJsonObject);
  if (context !== undefined) run.context = context;
  const dryRun = read.optionalBoolean('dry_run');
  if (dryRun !== undefined) run.dryRun = dryRun;
  const settings = read.optionalJson('settings', isRunSettings);
  if (settings !== undefined) run.settings = settings;
  const pendingApproval = read.optionalJson('pending_approval', isPendingApproval);
  if (pendingApproval !== undefined) run.pendingApproval = pendingApproval;
  return run;
}

/**
 * The column a statement returns a lease's expiry in, as milliseconds since
 * the epoch: SQLite keeps them so; PostgreSQL computes them from its timestamptz
 * (`msOf` in postgres/run-statements.ts).
 */
export const LEASE_EXPIRY: Readonly<Record<SqlDialect, string>> = {
  sqlite: 'lease_expires_at',
  postgres: 'lease_expires_ms',
};

/** A lease a claim or renewal returned (id, lease_owner, lease_epoch and the expiry). */
export function leaseFromRow(row: SqlRow, dialect: SqlDialect): RunLease {
  const read = new RowReader(row, dialect, 'run');
  return {
    runId: read.text('id'),
    owner: read.text('lease_owner'),
    epoch: read.integer('lease_epoch'),
    expiresAt: read.integer(LEASE_EXPIRY[dialect]),
  };
}
