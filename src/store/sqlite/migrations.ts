/**
 * One schema change. `version` is what `PRAGMA user_version` holds once it is
 * applied; versions run 1, 2, 3… with no gap. Append new steps, never edit a
 * released one: databases in the field already ran it.
 */
export interface SqliteMigration {
  version: number;
  description: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    description: 'runs, events, threads, thread messages and idempotency keys',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY NOT NULL,
        tenant_id TEXT,
        user_id TEXT,
        thread_id TEXT,
        status TEXT NOT NULL,
        input TEXT NOT NULL,
        model TEXT NOT NULL,
        output TEXT,
        error TEXT,
        usage TEXT NOT NULL,
        steps INTEGER NOT NULL DEFAULT 0,
        last_event_id INTEGER NOT NULL DEFAULT 0,
        metadata TEXT,
        context TEXT,
        dry_run INTEGER,
        pending_approval TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX runs_tenant_status ON runs (tenant_id, status);
      CREATE INDEX runs_thread ON runs (thread_id);
      CREATE INDEX runs_created ON runs (created_at, id);

      CREATE TABLE events (
        run_id TEXT NOT NULL REFERENCES runs (id),
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        time TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) STRICT, WITHOUT ROWID;
      -- The log is the audit trail: the database itself refuses to rewrite it.
      CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
      CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

      CREATE TABLE threads (
        id TEXT PRIMARY KEY NOT NULL,
        tenant_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE thread_messages (
        thread_id TEXT NOT NULL REFERENCES threads (id),
        seq INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE idempotency_keys (
        tenant_id TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        run_id TEXT NOT NULL REFERENCES runs (id),
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, key)
      ) STRICT;
      CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
    `,
  },
];
