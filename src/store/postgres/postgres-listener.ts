import { Client, type ClientConfig, type Notification } from 'pg';
import { ToolgateError, describeError } from '../../core/index.ts';
import { postgresFailure, type PostgresFailureOptions } from './postgres-failure.ts';
import { EVENTS_CHANNEL } from './run-statements.ts';

export type AppendedCallback = (lastEventId: number) => void;

/** First wait before reconnecting a lost LISTEN connection; it doubles per failed attempt up to the maximum. */
export const DEFAULT_LISTEN_RETRY_MS = 100;
export const DEFAULT_LISTEN_RETRY_MAX_MS = 5_000;

export interface PostgresListenerInit {
  /** For the one dedicated connection (not a pool client: a pooled one would drop LISTEN when returned). */
  config: ClientConfig;
  naming: Omit<PostgresFailureOptions, 'action'>;
  retryMs?: number;
  retryMaxMs?: number;
}

/** `<runId>:<lastEventId>` as appends NOTIFY it; undefined for anything else. */
export function parseAppendedPayload(payload: string | undefined): { runId: string; lastEventId: number } | undefined {
  if (payload === undefined) return undefined;
  const colon = payload.lastIndexOf(':');
  const seq = payload.slice(colon + 1);
  if (colon < 1 || !/^[1-9][0-9]{0,14}$/.test(seq)) return undefined;
  return { runId: payload.slice(0, colon), lastEventId: Number(seq) };
}

/**
 * PostgresRunStore's `watch`: one LISTEN connection per store instance,
 * opened on the first watch and kept until close. When it drops while someone
 * watches, or cannot be opened because the database is unavailable, it
 * reconnects with backoff and then wakes every watcher once, since
 * notifications sent meanwhile are lost: a watch made while the database is
 * gone is kept and woken like the others. When it drops while nobody watches,
 * the next watch opens a new one. Payloads that do not parse are ignored.
 */
export class PostgresListener {
  readonly #config: ClientConfig;
  readonly #naming: Omit<PostgresFailureOptions, 'action'>;
  readonly #retryMs: number;
  readonly #retryMaxMs: number;
  readonly #watchers = new Map<string, Set<AppendedCallback>>();
  #client: Client | undefined;
  #ready: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #closed = false;

  constructor(init: PostgresListenerInit) {
    this.#config = init.config;
    this.#naming = init.naming;
    this.#retryMs = init.retryMs ?? DEFAULT_LISTEN_RETRY_MS;
    this.#retryMaxMs = init.retryMaxMs ?? DEFAULT_LISTEN_RETRY_MAX_MS;
  }

  async watch(runId: string, onAppended: AppendedCallback): Promise<() => void> {
    // A wrapper of its own: the same function watched twice is two watches.
    const watcher: AppendedCallback = (lastEventId) => onAppended(lastEventId);
    let set = this.#watchers.get(runId);
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(runId, set);
    }
    set.add(watcher);
    const unwatch = (): void => {
      const current = this.#watchers.get(runId);
      current?.delete(watcher);
      if (current?.size === 0) this.#watchers.delete(runId);
    };
    // Reconnecting already (with backoff): this watcher is woken with the others once the connection is back.
    if (this.#timer !== undefined) return unwatch;
    try {
      await this.#listen();
    } catch (error) {
      if (this.#closed || !(error instanceof ToolgateError && error.code === 'store_unavailable')) {
        unwatch();
        throw error;
      }
      // Said once per outage: other watches made meanwhile wait for the same reconnect.
      if (this.#timer === undefined) {
        process.emitWarning(`${error.message}; listening again with backoff`, 'ToolgateWarning');
        this.#failures += 1;
        this.#reconnectLater();
      }
    }
    return unwatch;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#watchers.clear();
    const client = this.#client;
    this.#client = undefined;
    this.#ready = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Resolves once the connection is up and listening (the current attempt, or a new one). */
  #listen(): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    this.#ready ??= this.#connect().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #connect(): Promise<void> {
    const client = new Client(this.#config);
    // Attached before connecting: an 'error' without a listener would end the process.
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, undefined));
    client.on('notification', (message) => this.#notified(message));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw postgresFailure(error, { ...this.#naming, action: 'listen for appends' });
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw closedError();
    }
    this.#client = client;
  }

  #lost(client: Client, error: Error | undefined): void {
    if (client !== this.#client) return;
    this.#client = undefined;
    this.#ready = undefined;
    if (this.#closed || this.#watchers.size === 0) return;
    process.emitWarning(
      `PostgreSQL store ${this.#naming.label}: the connection listening for ` +
        `appends was lost (${error?.message ?? 'closed by the server'}); reconnecting`,
      'ToolgateWarning',
    );
    this.#reconnectLater();
  }

  #reconnectLater(): void {
    if (this.#closed || this.#timer !== undefined) return;
    const delay = Math.min(this.#retryMaxMs, this.#retryMs * 2 ** this.#failures);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#listen().then(
        () => {
          this.#failures = 0;
          return this.#wakeAll();
        },
        () => {
          this.#failures += 1;
          // Nobody watches any more: the next watch opens a connection.
          if (this.#watchers.size > 0) this.#reconnectLater();
        },
      );
    }, delay);
    this.#timer.unref();
  }

  /** After a reconnect: every watcher once, with its run's last event id (0 where it cannot be read). */
  async #wakeAll(): Promise<void> {
    const runIds = [...this.#watchers.keys()];
    if (runIds.length === 0) return;
    const last = new Map<string, number>();
    try {
      const result = await this.#client?.query<{ id: string; last_event_id: number }>(
        'SELECT id, last_event_id FROM runs WHERE id = ANY($1::text[])',
        [runIds],
      );
      for (const row of result?.rows ?? []) last.set(row.id, Number(row.last_event_id));
    } catch {
      // Still woken below: the log read by sequence number is the truth, the number only a hint.
    }
    for (const runId of runIds) this.#deliver(runId, last.get(runId) ?? 0);
  }

  #notified(message: Notification): void {
    if (message.channel !== EVENTS_CHANNEL) return;
    const appended = parseAppendedPayload(message.payload);
    if (appended !== undefined) this.#deliver(appended.runId, appended.lastEventId);
  }

  #deliver(runId: string, lastEventId: number): void {
    const set = this.#watchers.get(runId);
    if (set === undefined) return;
    for (const watcher of [...set]) {
      if (!set.has(watcher)) continue;
      try {
        watcher(lastEventId);
      } catch (error) {
        process.emitWarning(`a run watcher threw: ${describeError(error)}`, 'ToolgateWarning');
      }
    }
  }
}

function closedError(): ToolgateError {
  return new ToolgateError('internal', 'the run store is closed');
}
