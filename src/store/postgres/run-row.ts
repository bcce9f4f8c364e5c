import type { ErrorInfo, JsonObject, Message, NewRun, PendingApproval, Run, RunEvent, RunSettings, RunStatus, Thread, Usage } from '../../core/index.ts';
import type { LeaseState } from '../lease-guard.ts';
import type { PgRow } from './postgres-connection.ts';

/** The columns of `runs` a Run shows (never the lease). */
export const RUN_FIELDS = [
  'id',
  'tenant_id',
  'user_id',
  'thread_id',
  'status',
  'input',
  'model',
  'output',
  'error',
  'usage',
  'steps',
  'last_event_id',
  'metadata',
  'context',
  'dry_run',
  'settings',
  'pending_approval',
  'created_at',
  'updated_at',
].join(', ');

/** Parameters $1…$12 of INSERT_RUN for a run about to be created. */
export function newRunParams(init: NewRun & { id: string }, usage: Usage): unknown[] {
  return [
    init.id,
    init.tenantId ?? null,
    init.userId ?? null,
    init.threadId ?? null,
    init.status ?? 'queued',
    init.input,
    init.model,
    json(usage),
    json(init.metadata),
    json(init.context),
    init.dryRun ?? null,
    json(init.settings),
  ];
}

export function runFromRow(row: PgRow): Run {
  const run: Run = {
    id: String(row['id']),
    status: String(row['status']) as RunStatus,
    input: String(row['input']),
    model: String(row['model']),
    createdAt: isoTime(row['created_at']),
    updatedAt: isoTime(row['updated_at']),
    usage: row['usage'] as Usage,
    steps: Number(row['steps']),
    lastEventId: Number(row['last_event_id']),
  };
  const tenantId = optional<string>(row, 'tenant_id');
  if (tenantId !== undefined) run.tenantId = tenantId;
  const userId = optional<string>(row, 'user_id');
  if (userId !== undefined) run.userId = userId;
  const threadId = optional<string>(row, 'thread_id');
  if (threadId !== undefined) run.threadId = threadId;
  const output = optional<string>(row, 'output');
  if (output !== undefined) run.output = output;
  const error = optional<ErrorInfo>(row, 'error');
  if (error !== undefined) run.error = error;
  const metadata = optional<JsonObject>(row, 'metadata');
  if (metadata !== undefined) run.metadata = metadata;
  const context = optional<JsonObject>(row, 'context');
  if (context !== undefined) run.context = context;
  const dryRun = optional<boolean>(row, 'dry_run');
  if (dryRun !== undefined) run.dryRun = dryRun;
  const settings = optional<RunSettings>(row, 'settings');
  if (settings !== undefined) run.settings = settings;
  const pendingApproval = optional<PendingApproval>(row, 'pending_approval');
  if (pendingApproval !== undefined) run.pendingApproval = pendingApproval;
  return run;
}

export function eventFromRow(runId: string, row: PgRow): RunEvent {
  return { id: Number(row['seq']), runId, type: String(row['type']), time: isoTime(row['time']), data: row['data'] } as RunEvent;
}

/** A thread row with its messages aggregated (`messages`, a JSON array in seq order). */
export function threadFromRow(row: PgRow): Thread {
  // '' is the key column's stand-in for "no tenant".
  const tenantId = String(row['tenant_id']);
  return {
    id: String(row['id']),
    ...(tenantId === '' ? {} : { tenantId }),
    messages: row['messages'] as Message[],
    createdAt: isoTime(row['created_at']),
    updatedAt: isoTime(row['updated_at']),
  };
}

/** The lease columns as the append check reads them; expiry in ms by the database clock. */
export function leaseStateFromRow(row: PgRow): LeaseState {
  const owner = row['lease_owner'];
  const expiresAt = row['lease_expires_ms'];
  return {
    owner: owner === null || owner === undefined ? undefined : String(owner),
    epoch: Number(row['lease_epoch'] ?? 0),
    expiresAt: expiresAt === null || expiresAt === undefined ? undefined : Number(expiresAt),
  };
}

/** JSON text for a json/jsonb parameter: SQL NULL when absent. Never an object: pg would send arrays as SQL arrays. */
export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function isoTime(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

function optional<T>(row: PgRow, column: string): T | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : (value as T);
}
