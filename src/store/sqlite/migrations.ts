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
  {
    version: 2,
    description:
      'runs.ended_by: the terminal event of a run, so append can refuse what comes after it without reading the log',
    // The terminal types are spelled out, not imported: this step must do tomorrow what it did the day it shipped.
    sql: `
      ALTER TABLE runs ADD COLUMN ended_by TEXT;
      UPDATE runs SET ended_by = (
        SELECT type FROM events
        WHERE events.run_id = runs.id AND type IN ('run_completed', 'run_failed', 'run_cancelled')
        ORDER BY seq LIMIT 1
      );
    `,
  },
  {
    version: 3,
    description: 'threads keyed by (tenant, id): each tenant has its own thread ids',
    // SQLite cannot change a primary key in place: copy into new tables, then
    // take the old names (RENAME rewrites the foreign key to the new name).
    sql: `
      -- '' stands for "no tenant": NULL would let the primary key hold duplicates.
      CREATE TABLE threads_by_tenant (
        tenant_id TEXT NOT NULL,
        id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (tenant_id, id)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE thread_messages_by_tenant (
        tenant_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (tenant_id, thread_id, seq),
        FOREIGN KEY (tenant_id, thread_id) REFERENCES threads_by_tenant (tenant_id, id)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO threads_by_tenant (tenant_id, id, created_at, updated_at)
        SELECT COALESCE(tenant_id, ''), id, created_at, updated_at FROM threads;
      INSERT INTO thread_messages_by_tenant (tenant_id, thread_id, seq, message)
        SELECT COALESCE(threads.tenant_id, ''), thread_messages.thread_id, thread_messages.seq, thread_messages.message
        FROM thread_messages JOIN threads ON threads.id = thread_messages.thread_id;
      DROP TABLE thread_messages;
      DROP TABLE threads;
      ALTER TABLE threads_by_tenant RENAME TO threads;
      ALTER TABLE thread_messages_by_tenant RENAME TO thread_messages;
    `,
  },
  {
    version: 4,
    description: 'runs.settings and run leases: one owner drives a run, fenced by an epoch that grows with every claim',
    // lease_owner and lease_expires_at are set and cleared together; lease_epoch only grows.
    // The index serves claimNext: runs of a status whose lease is absent (NULL) or expired.
    sql: `
      ALTER TABLE runs ADD COLUMN settings TEXT;
      ALTER TABLE runs ADD COLUMN lease_owner TEXT;
      ALTER TABLE runs ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN lease_expires_at INTEGER;
      CREATE INDEX runs_claimable ON runs (status, lease_expires_at);
    `,
  },
  {
    version: 5,
    description:
      'tool_pins: the definition of each upstream MCP tool as first seen or last accepted (gateway tool pinning)',
    // definition is the JSON text as written; fingerprint is the caller's hash of it, never recomputed here.
    sql: `
      CREATE TABLE tool_pins (
        server TEXT NOT NULL,
        tool TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        definition TEXT NOT NULL,
        pinned_at TEXT NOT NULL,
        accepted_by TEXT NOT NULL,
        PRIMARY KEY (server, tool)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 6,
    description:
      'limit_slots and limit_strikes: gateway session shares, rate-limit ' +
      'windows and failed authentications, counted across processes',
    // Times are milliseconds since the epoch (storeNow). A slot with a holder is renewed by it; one without only
    // expires.
    sql: `
      CREATE TABLE limit_slots (
        key TEXT NOT NULL,
        id TEXT NOT NULL,
        holder TEXT,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key, id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX limit_slots_id ON limit_slots (id);
      CREATE INDEX limit_slots_holder ON limit_slots (holder) WHERE holder IS NOT NULL;
      CREATE INDEX limit_slots_expires ON limit_slots (expires_at);
      CREATE TABLE limit_strikes (
        key TEXT PRIMARY KEY NOT NULL,
        count INTEGER NOT NULL,
        last_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX limit_strikes_expires ON limit_strikes (expires_at);
    `,
  },
  {
    version: 7,
    description: 'runs_updated: runs by when they last changed (live statistics, retention)',
    sql: `
      CREATE INDEX runs_updated ON runs (updated_at, id);
    `,
  },
];
