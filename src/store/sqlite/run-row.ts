import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import { parseJson } from '../../core/parse-json.ts';
import type { NewRun, PendingApproval, Run, RunEvent, RunSettings, RunStatus, Thread, Usage, ErrorInfo, JsonObject, Message } from '../../core/index.ts';

/** A row as node:sqlite returns it. */
export type SqliteRow = Record<string, SQLOutputValue>;

/** The columns of one `runs` row, in insert order. */
export const RUN_COLUMNS = [
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
  'pending_approval',
  'created_at',
  'updated_at',
  'settings',
] as const;

/** Values for RUN_COLUMNS of a run that was just created. */
export function newRunValues(init: NewRun & { id: string }, now: string, usage: Usage): SQLInputValue[] {
  return [
    init.id,
    init.tenantId ?? null,
    init.userId ?? null,
    init.threadId ?? null,
    init.status ?? 'queued',
    init.input,
    init.model,
    null,
    null,
    JSON.stringify(usage),
    0,
    0,
    json(init.metadata),
    json(init.context),
    init.dryRun === undefined ? null : Number(init.dryRun),
    null,
    now,
    now,
    json(init.settings),
  ];
}

export function runFromRow(row: SqliteRow): Run {
  const run: Run = {
    id: text(row, 'id'),
    status: text(row, 'status') as RunStatus,
    input: text(row, 'input'),
    model: text(row, 'model'),
    createdAt: text(row, 'created_at'),
    updatedAt: text(row, 'updated_at'),
    usage: JSON.parse(text(row, 'usage')) as Usage,
    steps: Number(row['steps']),
    lastEventId: Number(row['last_event_id']),
  };
  const tenantId = optionalText(row, 'tenant_id');
  if (tenantId !== undefined) run.tenantId = tenantId;
  const userId = optionalText(row, 'user_id');
  if (userId !== undefined) run.userId = userId;
  const threadId = optionalText(row, 'thread_id');
  if (threadId !== undefined) run.threadId = threadId;
  const output = optionalText(row, 'output');
  if (output !== undefined) run.output = output;
  const error = optionalJson<ErrorInfo>(row, 'error');
  if (error !== undefined) run.error = error;
  const metadata = optionalJson<JsonObject>(row, 'metadata');
  if (metadata !== undefined) run.metadata = metadata;
  const context = optionalJson<JsonObject>(row, 'context');
  if (context !== undefined) run.context = context;
  if (row['dry_run'] !== null && row['dry_run'] !== undefined) run.dryRun = Number(row['dry_run']) !== 0;
  const settings = optionalJson<RunSettings>(row, 'settings');
  if (settings !== undefined) run.settings = settings;
  const pendingApproval = optionalJson<PendingApproval>(row, 'pending_approval');
  if (pendingApproval !== undefined) run.pendingApproval = pendingApproval;
  return run;
}

export function eventFromRow(runId: string, row: SqliteRow): RunEvent {
  return { id: Number(row['seq']), runId, type: text(row, 'type'), time: text(row, 'time'), data: parseJson(text(row, 'data')) } as RunEvent;
}

export function threadFromRows(row: SqliteRow, messageRows: readonly SqliteRow[]): Thread {
  // '' is the key column's stand-in for "no tenant".
  const tenantId = optionalText(row, 'tenant_id');
  return {
    id: text(row, 'id'),
    ...(tenantId === undefined || tenantId === '' ? {} : { tenantId }),
    messages: messageRows.map((m) => parseJson(text(m, 'message')) as Message),
    createdAt: text(row, 'created_at'),
    updatedAt: text(row, 'updated_at'),
  };
}

/** JSON text for an optional column: SQL NULL when absent. */
export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function text(row: SqliteRow, column: string): string {
  return String(row[column]);
}

function optionalText(row: SqliteRow, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : String(value);
}

function optionalJson<T>(row: SqliteRow, column: string): T | undefined {
  const value = optionalText(row, column);
  return value === undefined ? undefined : (parseJson(value) as T);
}
