import {
  ROLLOUTS_THREAD_ID,
  RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  type ChangedRunsQuery,
  type Run,
  type RunStatus,
  type RunStore,
} from '../../core/index.ts';
import { readAllEvents } from '../replay/index.ts';
import { ArchiveWriter } from './archive-writer.ts';

/** How long ended runs are kept (config `retention`); a status without days is kept for good. */
export interface RetentionPolicy {
  completedAfterDays?: number | undefined;
  failedAfterDays?: number | undefined;
  cancelledAfterDays?: number | undefined;
  /** Runs in which a person was asked to approve (an approval_required event) are kept. */
  keepApprovals?: boolean | undefined;
}

export interface PruneOptions {
  store: RunStore;
  policy?: RetentionPolicy;
  /** Every ended run last changed before this, whatever the policy's days (its keepApprovals still applies). */
  before?: Date;
  /** A file to write the pruned runs to first (runs export JSONL; `.gz`: gzipped). */
  archive?: string;
  /** Count what would go; write, delete and compact nothing. */
  dryRun?: boolean;
  /** PostgreSQL: VACUUM FULL (locks the tables while it rewrites them). */
  full?: boolean;
  /**
   * Compact the store afterwards (default true). `serve`'s passes do not: SQLite's VACUUM rewrites the whole file
   * while the process waits, and freed pages are reused anyway (PostgreSQL's autovacuum does the same there).
   */
  compact?: boolean;
  /** The clock the policy's days count back from (tests). */
  now?: Date;
}

export interface PruneReport {
  /** Runs old enough to be looked at. */
  examined: number;
  /** Runs deleted (with dryRun: that would be). */
  pruned: number;
  /** Events deleted with them. */
  events: number;
  /** Kept because a person was asked to approve in them (keepApprovals). */
  keptApprovals: number;
  /** Kept because they have not ended (e.g. waiting for an approval). */
  keptOpen: number;
  /** Kept because they record a rollout's rollback (thread `toolgate:rollouts`). */
  keptRollouts: number;
  archive?: { path: string; runs: number };
  /** The store's size before and after compacting; both 0 when nothing was deleted (no compaction then). */
  bytesBefore: number;
  bytesAfter: number;
}

const MS_PER_DAY = 86_400_000;
/** Runs listed per page, and deleted per call. */
const PAGE = 100;
type DaysKey = 'completedAfterDays' | 'failedAfterDays' | 'cancelledAfterDays';
const POLICY_DAYS: readonly (readonly [RunStatus, DaysKey])[] = [
  ['completed', 'completedAfterDays'],
  ['failed', 'failedAfterDays'],
  ['cancelled', 'cancelledAfterDays'],
];
const OPEN_STATUSES: readonly RunStatus[] = RUN_STATUSES.filter((s) => !TERMINAL_RUN_STATUSES.has(s));

/**
 * Removes the ended runs the policy (or `before`) says are due, with their events: listed from the store's changed-runs
 * index, written to the archive (complete and synced) before anything is deleted, deleted in batches, and the store
 * compacted afterwards. A run that has not ended is never removed.
 */
export async function pruneRuns(options: PruneOptions): Promise<PruneReport> {
  const { store } = options;
  const methods = retentionMethods(store);
  const queries = candidateQueries(options);
  const report: PruneReport = {
    examined: 0,
    pruned: 0,
    events: 0,
    keptApprovals: 0,
    keptOpen: 0,
    keptRollouts: 0,
    bytesBefore: 0,
    bytesAfter: 0,
  };
  const due = new Map<string, number>();
  const archive =
    options.archive === undefined || options.dryRun === true ? undefined : await ArchiveWriter.create(options.archive);
  try {
    for (const query of queries) {
      for await (const run of changedRuns(methods.list, query)) {
        report.examined += 1;
        // A rollback's record: pruning it would start the rolled-back rollout again.
        if (run.threadId === ROLLOUTS_THREAD_ID) {
          report.keptRollouts += 1;
          continue;
        }
        if (!TERMINAL_RUN_STATUSES.has(run.status)) {
          report.keptOpen += 1;
          continue;
        }
        const events =
          options.policy?.keepApprovals === true || archive !== undefined ? await readAllEvents(store, run.id) : [];
        if (options.policy?.keepApprovals === true && events.some((e) => e.type === 'approval_required')) {
          report.keptApprovals += 1;
          continue;
        }
        await archive?.add({ run, events });
        due.set(run.id, run.lastEventId);
      }
    }
    await archive?.close();
    // Nothing to prune: no empty file (serve would leave one per pass).
    if (archive?.runs === 0) await archive.abandon();
  } catch (error) {
    await archive?.abandon();
    throw error;
  }
  if (archive !== undefined && archive.runs > 0) report.archive = { path: archive.path, runs: archive.runs };
  if (options.dryRun === true) return { ...report, pruned: due.size, events: sum(due.values()) };
  const ids = [...due.keys()];
  for (let start = 0; start < ids.length; start += PAGE) {
    const result = await methods.delete(ids.slice(start, start + PAGE));
    report.pruned += result.deleted.length;
    for (const id of result.deleted) report.events += due.get(id) ?? 0;
    report.keptOpen += result.kept.filter((k) => k.reason === 'not_ended').length;
  }
  if (report.pruned > 0 && options.compact !== false) {
    const size = await methods.compact({ ...(options.full === true ? { full: true } : {}) });
    report.bytesBefore = size.bytesBefore;
    report.bytesAfter = size.bytesAfter;
  }
  return report;
}

/** The store's retention methods, or a usage error naming the stores that have them. */
function retentionMethods(store: RunStore): {
  list: NonNullable<RunStore['listChangedRuns']>;
  delete: NonNullable<RunStore['deleteRuns']>;
  compact: NonNullable<RunStore['compact']>;
} {
  const list = store.listChangedRuns?.bind(store);
  const remove = store.deleteRuns?.bind(store);
  const compact = store.compact?.bind(store);
  if (list === undefined || remove === undefined || compact === undefined)
    throw new ToolgateError(
      'usage',
      'this store cannot prune runs: retention works on sqlite:<file>, postgres://… and memory:',
    );
  return { list, delete: remove, compact };
}

/**
 * What to list: with `before`, every run last changed before it; else per status with days, the runs of that status
 * older than its cut-off, and the runs that have not ended older than the latest cut-off (counted, never removed).
 */
export function candidateQueries(options: Pick<PruneOptions, 'policy' | 'before' | 'now'>): ChangedRunsQuery[] {
  if (options.before !== undefined) {
    if (Number.isNaN(options.before.getTime()))
      throw new ToolgateError('usage', 'retention: `before` is not a valid time');
    return [{ before: options.before.toISOString() }];
  }
  const now = (options.now ?? new Date()).getTime();
  const queries: ChangedRunsQuery[] = [];
  for (const [status, key] of POLICY_DAYS) {
    const days = options.policy?.[key];
    if (days === undefined) continue;
    if (!(days > 0)) throw new ToolgateError('usage', `retention.${key} must be a number of days > 0, got ${days}`);
    queries.push({ before: new Date(now - days * MS_PER_DAY).toISOString(), statuses: [status] });
  }
  if (queries.length === 0)
    throw new ToolgateError(
      'usage',
      'nothing says which runs to prune: set retention.completedAfterDays, failedAfterDays or ' +
        'cancelledAfterDays in the config, or give a cut-off (toolgate runs prune --before 30d)',
    );
  // The latest cut-off: a run that has not ended and is that old would be due had it ended.
  const latest =
    queries
      .map((q) => q.before ?? '')
      .sort()
      .at(-1) ?? '';
  return [...queries, { before: latest, statuses: OPEN_STATUSES }];
}

async function* changedRuns(
  list: NonNullable<RunStore['listChangedRuns']>,
  query: ChangedRunsQuery,
): AsyncGenerator<Run> {
  let cursor: string | undefined;
  do {
    const page = await list({ ...query, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    yield* page.runs;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
