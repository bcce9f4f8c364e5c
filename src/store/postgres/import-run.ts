import { isTerminalEvent, type Run, type RunEvent } from '../../core/index.ts';
import type { Query } from './postgres-connection.ts';

const INSERT_COPIED_RUN = `INSERT INTO runs (id, tenant_id, user_id, thread_id, status, input, model, output, error, usage, steps, last_event_id,
  metadata, context, dry_run, settings, pending_approval, ended_by, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13::jsonb, $14::jsonb, $15, $16::jsonb, $17::jsonb, $18, $19::timestamptz, $20::timestamptz)
ON CONFLICT (id) DO NOTHING
RETURNING id`;

const INSERT_COPIED_EVENTS = `INSERT INTO events (run_id, seq, type, time, data)
SELECT $1, e.seq, e.type, e.time, e.data::json
FROM unnest($2::integer[], $3::text[], $4::timestamptz[], $5::text[]) AS e(seq, type, time, data)`;

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** The body of importRun's transaction: a run copied from another store, as it was, with its log. */
export async function importRunLocked(query: Query, run: Run, events: readonly RunEvent[]): Promise<'imported' | 'exists'> {
  const terminal = events.find((event) => isTerminalEvent(event));
  const [row] = await query(INSERT_COPIED_RUN, [
    run.id,
    run.tenantId ?? null,
    run.userId ?? null,
    run.threadId ?? null,
    run.status,
    run.input,
    run.model,
    run.output ?? null,
    json(run.error),
    json(run.usage),
    run.steps,
    events.at(-1)?.id ?? 0,
    json(run.metadata),
    json(run.context),
    run.dryRun ?? null,
    json(run.settings),
    json(run.pendingApproval),
    terminal?.type ?? null,
    run.createdAt,
    run.updatedAt,
  ]);
  if (row === undefined) return 'exists';
  if (events.length > 0) {
    await query(INSERT_COPIED_EVENTS, [run.id, events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.time), events.map((e) => JSON.stringify(e.data))]);
  }
  return 'imported';
}
