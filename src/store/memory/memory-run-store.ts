import {
  ToolgateError,
  ZERO_USAGE,
  newId,
  type EventDraft,
  type EventListener,
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

interface Entry {
  run: Run;
  events: RunEvent[];
  listeners: Set<EventListener>;
}

/** RunStore in process memory: for tests, the CLI's one-shot runs and `--store memory:`. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, Entry>();
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
    };
    this.#runs.set(id, { run, events: [], listeners: new Set() });
    return structuredClone(run);
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
    entry.run = { ...entry.run, ...structuredClone(patch ?? {}), lastEventId: entry.run.lastEventId + events.length, updatedAt: time };
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
