import type { SQLInputValue } from 'node:sqlite';
import type { RunPatch } from '../../core/index.ts';
import { RUN_COLUMNS, json } from './run-row.ts';

export const INSERT_RUN = `INSERT INTO runs (${RUN_COLUMNS.join(', ')}) VALUES (${RUN_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (id) DO NOTHING`;

// One statement for every patch shape: a set_* flag says whether the column changes.
export const UPDATE_RUN = `UPDATE runs SET
  status = CASE WHEN :set_status THEN :status ELSE status END,
  output = CASE WHEN :set_output THEN :output ELSE output END,
  error = CASE WHEN :set_error THEN :error ELSE error END,
  usage = CASE WHEN :set_usage THEN :usage ELSE usage END,
  steps = CASE WHEN :set_steps THEN :steps ELSE steps END,
  pending_approval = CASE WHEN :set_pending THEN :pending ELSE pending_approval END,
  ended_by = COALESCE(ended_by, :ended_by),
  last_event_id = :last_event_id,
  updated_at = :updated_at
WHERE id = :id`;

/** The named parameters of UPDATE_RUN that carry the patch (null pendingApproval clears it). */
export function patchParams(patch: RunPatch): Record<string, SQLInputValue> {
  return {
    set_status: Number(patch.status !== undefined),
    status: patch.status ?? null,
    set_output: Number(patch.output !== undefined),
    output: patch.output ?? null,
    set_error: Number(patch.error !== undefined),
    error: json(patch.error),
    set_usage: Number(patch.usage !== undefined),
    usage: json(patch.usage),
    set_steps: Number(patch.steps !== undefined),
    steps: patch.steps ?? null,
    set_pending: Number(patch.pendingApproval !== undefined),
    pending: json(patch.pendingApproval),
  };
}

export const SELECT_APPEND_STATE = 'SELECT last_event_id, status, ended_by FROM runs WHERE id = ?';

export const INSERT_EVENT = 'INSERT INTO events (run_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)';

export const SELECT_KEY = 'SELECT request_hash, run_id, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?';

export const UPSERT_KEY = `INSERT INTO idempotency_keys (tenant_id, key, request_hash, run_id, expires_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (tenant_id, key) DO UPDATE SET
    request_hash = excluded.request_hash, run_id = excluded.run_id, expires_at = excluded.expires_at`;

// Threads are keyed by (tenant, id); '' is the tenant of callers without one.
export const SELECT_THREAD = 'SELECT id, tenant_id, created_at, updated_at FROM threads WHERE tenant_id = ? AND id = ?';

export const SELECT_THREAD_MESSAGES = 'SELECT message FROM thread_messages WHERE tenant_id = ? AND thread_id = ? ORDER BY seq';

export const UPSERT_THREAD = `INSERT INTO threads (tenant_id, id, created_at, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (tenant_id, id) DO UPDATE SET updated_at = excluded.updated_at`;

export const LAST_THREAD_SEQ = 'SELECT COALESCE(MAX(seq), 0) AS last FROM thread_messages WHERE tenant_id = ? AND thread_id = ?';

export const INSERT_THREAD_MESSAGE = 'INSERT INTO thread_messages (tenant_id, thread_id, seq, message) VALUES (?, ?, ?, ?)';
