import {
  ToolgateError,
  ZERO_USAGE,
  newId,
  type EventDraft,
  type EventListener,
  type IdempotencyRequest,
  type Message,
  type Thread,
  type ListRunsQuery,
  type NewRun,
  type ReadEventsOptions,
  type Run,
  type RunEvent,
  type RunPage,
  type RunPatch,
  type RunStore,
} from '../../core/index.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

interface IdempotencyEntry {
  runId: string;
  requestHash: string;
  expiresAt: number;
}

interface Entry {
  run: Run;
  events: RunEvent[];
  listeners: Set<EventListener>;
}

/** RunStore in process memory: for tests, the CLI's one-shot runs and `--store memory:`. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, Entry>();
  readonly #keys = new Map<string, IdempotencyEntry>();
  readonly #threads = new Map<string, Thread>();
  #closed = false;

  async createRun(init: NewRun): Promise<Run> {
    this.#assertOpen();
    const id = init.id ?? newId('run');
    if (this.#runs.has(id)) throw new ToolgateError('conflict', `run ${id} already exists`);
    const now = new Date().toISOString();
    const run: Run = {
      id,
      status: init.status ?? 'queued',
      input: init.input,
      model: init.model,
      createdAt: now,
      updatedAt: now,
      usage: { ...ZERO_USAGE },
      steps: 0,
      lastEventId: 0,
      ...(init.tenantId === undefined ? {} : { tenantId: init.tenantId }),
      ...(init.userId === undefined ? {} : { userId: init.userId }),
      ...(init.threadId === undefined ? {} : { threadId: init.threadId }),
      ...(init.metadata === undefined ? {} : { metadata: init.metadata }),
      ...(init.context === undefined ? {} : { context: init.context }),
      ...(init.dryRun === undefined ? {} : { dryRun: init.dryRun }),
    };
    this.#runs.set(id, { run: structuredClone(run), events: [], listeners: new Set() });
    return run;
  }

  async createRunIdempotent(init: NewRun, idempotency: IdempotencyRequest): Promise<{ run: Run; created: boolean }> {
    this.#assertOpen();
    const scoped = `${init.tenantId ?? ''}\u0000${idempotency.key}`;
    const now = Date.now();
    const existing = this.#keys.get(scoped);
    if (existing !== undefined && existing.expiresAt > now) {
      if (existing.requestHash !== idempotency.requestHash) {
        throw new ToolgateError(
          'idempotency_mismatch',
          `Idempotency-Key "${idempotency.key}" was already used with a different request body; use a new key for a new request`,
        );
      }
      const run = await this.getRun(existing.runId);
      if (run !== undefined) return { run, created: false };
    }
    const run = await this.createRun(init);
    this.#keys.set(scoped, {
      runId: run.id,
      requestHash: idempotency.requestHash,
      expiresAt: now + (idempotency.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS),
    });
    return { run, created: true };
  }

  async getThread(threadId: string, tenantId?: string): Promise<Thread | undefined> {
    const thread = this.#threads.get(threadId);
    if (thread === undefined || thread.tenantId !== tenantId) return undefined;
    return structuredClone(thread);
  }

  async appendThreadMessages(threadId: string, messages: readonly Message[], tenantId?: string): Promise<void> {
    this.#assertOpen();
    const now = new Date().toISOString();
    const thread = this.#threads.get(threadId);
    if (thread !== undefined && thread.tenantId !== tenantId) {
      throw new ToolgateError('not_found', `thread ${threadId} does not exist`);
    }
    const base: Thread = thread ?? { id: threadId, messages: [], createdAt: now, updatedAt: now, ...(tenantId === undefined ? {} : { tenantId }) };
    this.#threads.set(threadId, { ...base, messages: [...base.messages, ...structuredClone([...messages])], updatedAt: now });
  }

  async getRun(runId: string): Promise<Run | undefined> {
    const entry = this.#runs.get(runId);
    return entry === undefined ? undefined : structuredClone(entry.run);
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    // Newest first; the cursor is the index into that order.
    const all = [...this.#runs.values()]
      .map((e) => e.run)
      .filter((r) => query.tenantId === undefined || r.tenantId === query.tenantId)
      .filter((r) => query.status === undefined || r.status === query.status)
      .filter((r) => query.threadId === undefined || r.threadId === query.threadId)
      .reverse();
    const start = query.cursor === undefined ? 0 : Number(query.cursor);
    const runs = all.slice(start, start + limit).map((r) => structuredClone(r));
    const next = start + limit;
    return next < all.length ? { runs, nextCursor: String(next) } : { runs };
  }

  async append(runId: string, drafts: readonly EventDraft[], patch?: RunPatch): Promise<RunEvent[]> {
    this.#assertOpen();
    const entry = this.#runs.get(runId);
    if (entry === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    const time = new Date().toISOString();
    const events = drafts.map(
      (d, i) => ({ id: entry.run.lastEventId + i + 1, runId, type: d.type, time, data: structuredClone(d.data) }) as RunEvent,
    );
    entry.events.push(...events);
    const { pendingApproval, ...rest } = structuredClone(patch ?? {});
    const next: Run = { ...entry.run, ...rest, lastEventId: entry.run.lastEventId + events.length, updatedAt: time };
    if (pendingApproval === null) delete next.pendingApproval;
    else if (pendingApproval !== undefined) next.pendingApproval = pendingApproval;
    entry.run = next;
    for (const listener of entry.listeners) listener(events);
    return events;
  }

  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<RunEvent[]> {
    const entry = this.#runs.get(runId);
    if (entry === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    const after = options.after ?? 0;
    // ids are 1..n with no gap, so the index of id k is k-1.
    const slice = entry.events.slice(after, options.limit === undefined ? undefined : after + options.limit);
    return structuredClone(slice);
  }

  subscribe(runId: string, listener: EventListener): () => void {
    let entry = this.#runs.get(runId);
    if (entry === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    entry.listeners.add(listener);
    return () => {
      entry?.listeners.delete(listener);
      entry = undefined;
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#runs.values()) entry.listeners.clear();
  }

  #assertOpen(): void {
    if (this.#closed) throw new ToolgateError('internal', 'the run store is closed');
  }
}
