/**
 * One schema change. `version` is what the toolgate_migrations table records
 * once it is applied; versions run 1, 2, 3… with no gap. Append new steps,
 * never edit a released one: databases in the field already ran it. Each step
 * runs with search_path set to the store's schema, so names are unqualified.
 */
export interface PostgresMigration {
  version: number;
  description: string;
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: 'runs with leases, events, threads, thread messages and idempotency keys',
    // Ids compare byte-wise (COLLATE "C"), as in SQLite: the listRuns cursor and
    // claimNext order do not depend on the database's locale.
    // Times the API shows are kept to the millisecond (timestamptz(3)): an ISO
    // string read back compares equal to the stored value, which the listRuns
    // cursor relies on. Lease expiry keeps full precision.
    // Event data and thread messages are `json`, not `jsonb`: kept as the exact
    // text written (jsonb refuses "\u0000" in strings, which tool output may hold).
    // The active and terminal statuses are spelled out, not imported: this step
    // must do tomorrow what it did the day it shipped.
    sql: `
      CREATE TABLE runs (
        id text COLLATE "C" PRIMARY KEY,
        tenant_id text,
        user_id text,
        thread_id text,
        status text NOT NULL,
        input text NOT NULL,
        model text NOT NULL,
        output text,
        error jsonb,
        usage jsonb NOT NULL,
        steps integer NOT NULL DEFAULT 0,
        last_event_id integer NOT NULL DEFAULT 0,
        metadata jsonb,
        context jsonb,
        dry_run boolean,
        settings jsonb,
        pending_approval jsonb,
        ended_by text,
        lease_owner text,
        lease_epoch bigint NOT NULL DEFAULT 0,
        lease_expires_at timestamptz,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT runs_lease_whole CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL))
      );
      -- listRuns: newest first by (created_at, id), alone or filtered.
      CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
      CREATE INDEX runs_tenant_created ON runs (tenant_id, created_at DESC, id DESC);
      CREATE INDEX runs_tenant_status_created ON runs (tenant_id, status, created_at DESC, id DESC);
      CREATE INDEX runs_status_created ON runs (status, created_at DESC, id DESC);
      CREATE INDEX runs_thread_created ON runs (thread_id, created_at DESC, id DESC) WHERE thread_id IS NOT NULL;
      -- claimNext: only runs that may need an owner, oldest first.
      CREATE INDEX runs_claimable ON runs (created_at, id)
        WHERE status IN ('queued', 'running', 'planning', 'executing', 'monitoring', 'reflecting') AND ended_by IS NULL;

      CREATE TABLE events (
        run_id text COLLATE "C" NOT NULL REFERENCES runs (id),
        seq integer NOT NULL,
        type text NOT NULL,
        time timestamptz(3) NOT NULL,
        data json NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      -- The log is the audit trail: the database itself refuses to rewrite it.
      CREATE FUNCTION toolgate_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          RAISE EXCEPTION 'events are append-only';
        END
      $$;
      CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION toolgate_events_append_only();

      -- Threads are keyed by (tenant, id); '' is the tenant of callers without one.
      CREATE TABLE threads (
        tenant_id text NOT NULL,
        id text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (tenant_id, id)
      );
      CREATE TABLE thread_messages (
        tenant_id text NOT NULL,
        thread_id text NOT NULL,
        seq integer NOT NULL,
        message json NOT NULL,
        PRIMARY KEY (tenant_id, thread_id, seq),
        FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id)
      );

      -- '' is the tenant of callers without one. The run is inserted after its
      -- key (the key is claimed first), so the reference is checked at commit.
      CREATE TABLE idempotency_keys (
        tenant_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        run_id text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE INITIALLY DEFERRED,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, key)
      );
      CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
    `,
  },
  {
    version: 2,
    description:
      'tool_pins: the definition of each upstream MCP tool as first seen or last accepted (gateway tool pinning)',
    // definition is json, not jsonb, for the reasons of event data above. pinned_at
    // is the caller's ISO text, kept as given: a pin reads back exactly as it was written.
    sql: `
      CREATE TABLE tool_pins (
        server text COLLATE "C" NOT NULL,
        tool text COLLATE "C" NOT NULL,
        fingerprint text NOT NULL,
        definition json NOT NULL,
        pinned_at text NOT NULL,
        accepted_by text NOT NULL,
        PRIMARY KEY (server, tool)
      );
    `,
  },
  {
    version: 3,
    description:
      'limit_slots and limit_strikes: gateway session shares, rate-limit ' +
      'windows and failed authentications, counted across instances',
    // Times are milliseconds since the epoch by the database clock (clock_timestamp()), as bigint:
    // every instance judges expiry by the same clock. A slot with a holder is renewed by it; one without only expires.
    sql: `
      CREATE TABLE limit_slots (
        key text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        holder text,
        expires_at bigint NOT NULL,
        PRIMARY KEY (key, id)
      );
      CREATE INDEX limit_slots_id ON limit_slots (id);
      CREATE INDEX limit_slots_holder ON limit_slots (holder) WHERE holder IS NOT NULL;
      CREATE INDEX limit_slots_expires ON limit_slots (expires_at);
      CREATE TABLE limit_strikes (
        key text COLLATE "C" PRIMARY KEY,
        count integer NOT NULL,
        last_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX limit_strikes_expires ON limit_strikes (expires_at);
    `,
  },
  {
    version: 4,
    description:
      'runs_updated: runs by when they last changed (live statistics, retention); ' +
      'the append-only guard lets deleteRuns remove the events of the runs it prunes',
    // DELETE passes only inside a transaction that said SET LOCAL toolgate.prune = 'on' (deleteRuns does, and
    // nothing else); UPDATE is refused always, as before.
    sql: `
      CREATE INDEX runs_updated ON runs (updated_at, id);
      CREATE OR REPLACE FUNCTION toolgate_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' AND current_setting('toolgate.prune', true) = 'on' THEN
            RETURN OLD;
          END IF;
          RAISE EXCEPTION 'events are append-only';
        END
      $$;
    `,
  },
];
