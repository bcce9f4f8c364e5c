import {
  TERMINAL_RUN_STATUSES,
  WAITING_RUN_STATUSES,
  type Run,
  type RunEvent,
  type RunInput,
  type RunStatus,
} from '../core/index.ts';

/** A run summary as GET /v1/runs answers with it (a local store's runs are summarised the same way). */
export type RunRow = Readonly<Record<string, unknown>>;

export interface ListQuery {
  /** Any of these statuses; empty: every run. */
  statuses: readonly RunStatus[];
  limit: number;
}

export interface DriveHooks {
  onEvent: (event: RunEvent) => void;
  /** Ctrl-C. */
  signal?: AbortSignal;
}

/**
 * The runs of one place, a local store or a toolgate server, as the
 * `toolgate runs` commands use them: each command is written once, over this.
 */
export interface RunsBackend {
  /** For messages: `the store sqlite:/…` or `the server at http://…`. */
  readonly label: string;
  /** Run summaries (the shape GET /v1/runs answers with), newest first. */
  list(query: ListQuery): Promise<RunRow[]>;
  /** The whole run; `not_found` when there is none. */
  get(runId: string): Promise<Run>;
  /** Its stored events after sequence number `after`, in order. */
  events(runId: string, after: number): Promise<RunEvent[]>;
  /**
   * Hands over each event after `after` as it is appended, until the run
   * ends or waits for a person; resolves with the run as it stands then.
   */
  follow(runId: string, options: DriveHooks & { after: number }): Promise<Run>;
  /** Checks a decision can be carried out here (a local run's tools and model reopen) before anything is recorded. */
  prepareDecision(run: Run, input: RunInput): Promise<void>;
  /** Records input and nothing more (a gateway session's own process acts on it). */
  record(runId: string, input: RunInput): Promise<Run>;
  /** Records the decision, then carries the run on (or follows it) until it ends or waits again. */
  decide(runId: string, input: RunInput, hooks: DriveHooks): Promise<Run>;
  cancel(runId: string, reason: string | undefined): Promise<Run>;
  close(): Promise<void>;
}

/** Whether a follower that has seen events up to `lastSeen` has nothing more to wait for. */
export function isSettled(run: Run, lastSeen: number): boolean {
  if (run.lastEventId > lastSeen) return false;
  return TERMINAL_RUN_STATUSES.has(run.status) || WAITING_RUN_STATUSES.has(run.status);
}

/**
 * One list from several pages (one per status, each newest first): the
 * newest `limit` of them all. Stores and the API filter by one status at a time.
 */
export function newestFirst(pages: readonly (readonly RunRow[])[], limit: number): RunRow[] {
  const key = (run: RunRow): string => `${String(run['createdAt'] ?? '')}\u0000${String(run['id'] ?? '')}`;
  return pages
    .flat()
    .sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0))
    .slice(0, limit);
}

/** Runs `page` once per status (once in all without a filter) and merges the answers. */
export async function listByStatus(
  query: ListQuery,
  page: (status: RunStatus | undefined) => Promise<RunRow[]>,
): Promise<RunRow[]> {
  if (query.statuses.length === 0) return page(undefined);
  const statuses = [...new Set(query.statuses)];
  return newestFirst(await Promise.all(statuses.map((s) => page(s))), query.limit);
}
