import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore } from '../app/open-store.ts';
import { redactRunContext } from '../app/redact-run.ts';
import { Toolgate } from '../app/toolgate.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { ToolgateError, type Run, type RunEvent, type RunInput, type RunStore } from '../core/index.ts';
import { DEFAULT_SUMMARY_FIELDS, summarizeRun } from '../server/run-summary.ts';
import { usageError, type CliIO } from './cli-io.ts';
import {
  isSettled,
  listByStatus,
  type DriveHooks,
  type ListQuery,
  type RunRow,
  type RunsBackend,
} from './runs-backend.ts';
import { reopenToolgate } from './runs-reopen.ts';
import { CLI_USER } from './runs-settle.ts';
import type { LocalWhere } from './runs-where.ts';

/** How often `--follow` reads a local store: other processes append to it, and SQLite has no notifications. */
export const DEFAULT_FOLLOW_POLL_MS = 250;
const EVENT_PAGE = 500;

export interface LocalRunsOptions {
  where: LocalWhere;
  io: CliIO;
  /** Parsed flags (`config`, `mcp`, `verbose` reopen a run's tools). */
  values: Record<string, unknown>;
  pollMs?: number;
}

/** The runs of a store on this machine; decisions drive the run on in this process. */
export class LocalRuns implements RunsBackend {
  readonly label: string;
  readonly #store: RunStore;
  readonly #options: LocalRunsOptions;
  /** Drives decided runs or records a cancel; it closes the store with it. */
  #toolgate: Toolgate | undefined;

  private constructor(store: RunStore, options: LocalRunsOptions) {
    this.#store = store;
    this.#options = options;
    this.label = `the store ${options.where.spec}`;
  }

  static async open(options: LocalRunsOptions): Promise<LocalRuns> {
    const { where } = options;
    if (where.path !== undefined && !existsSync(where.path)) {
      // Nothing recorded yet is an empty store, not an error; a store named by hand must exist, or it is a typo.
      if (!where.isDefault)
        throw usageError(
          `there is no store at ${where.path} (check --store; toolgate run --store sqlite:<file> records there)`,
        );
      return new LocalRuns(await openStore('memory:'), options);
    }
    return new LocalRuns(await openStore(where.spec), options);
  }

  async list(query: ListQuery): Promise<RunRow[]> {
    return listByStatus(query, async (status) => {
      const page = await this.#store.listRuns({ limit: query.limit, ...(status === undefined ? {} : { status }) });
      return page.runs.map((run) => summarizeRun(run, DEFAULT_SUMMARY_FIELDS));
    });
  }

  async get(runId: string): Promise<Run> {
    const run = await this.#store.getRun(runId);
    if (run === undefined)
      throw new ToolgateError(
        'not_found',
        `run ${runId} not found in ${this.label} (toolgate runs list shows the runs there)`,
      );
    return redactRunContext(run);
  }

  async events(runId: string, after: number): Promise<RunEvent[]> {
    await this.get(runId);
    return this.#readEvents(runId, after);
  }

  async #readEvents(runId: string, after: number): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    for (let cursor = after; ;) {
      const page = await this.#store.readEvents(runId, { after: cursor, limit: EVENT_PAGE });
      events.push(...page);
      const last = page.at(-1);
      if (last === undefined || page.length < EVENT_PAGE) return events;
      cursor = last.id;
    }
  }

  async follow(runId: string, options: DriveHooks & { after: number }): Promise<Run> {
    let last = options.after;
    for (;;) {
      // The run first, then its events: a run read as settled has all its events in the store already.
      const run = await this.get(runId);
      for (const event of await this.#readEvents(runId, last)) {
        options.onEvent(event);
        last = event.id;
      }
      if (isSettled(run, last)) return run;
      await sleep(
        this.#options.pollMs ?? DEFAULT_FOLLOW_POLL_MS,
        undefined,
        options.signal === undefined ? {} : { signal: options.signal },
      );
    }
  }

  async prepareDecision(run: Run, input: RunInput): Promise<void> {
    const stored = (await this.#store.getRun(run.id)) ?? run;
    this.#toolgate = await reopenToolgate({
      run: stored,
      input,
      store: this.#store,
      where: this.#options.where,
      values: this.#options.values,
      io: this.#options.io,
    });
  }

  decide(runId: string, input: RunInput, hooks: DriveHooks): Promise<Run> {
    if (this.#toolgate === undefined)
      return Promise.reject(new ToolgateError('internal', 'prepareDecision comes before decide'));
    return this.#toolgate.submitInput(runId, input, hooks);
  }

  record(runId: string, input: RunInput): Promise<Run> {
    this.#toolgate ??= new Toolgate({ settings: resolveSettings({}, {}, {}), store: this.#store });
    return this.#toolgate.engine.input(runId, input);
  }

  async cancel(runId: string, reason: string | undefined): Promise<Run> {
    await this.get(runId);
    // Cancelling needs no tools and no model: the run's owner, if any, ends it; otherwise this engine does.
    this.#toolgate ??= new Toolgate({ settings: resolveSettings({}, {}, {}), store: this.#store });
    return this.#toolgate.cancel(runId, reason ?? 'cancelled from the command line', CLI_USER);
  }

  async close(): Promise<void> {
    await (this.#toolgate === undefined ? this.#store.close() : this.#toolgate.close());
  }
}
