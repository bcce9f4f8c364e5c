import type { ListRunsQuery, RunPage } from './ports/run-store.ts';
import { DEFAULT_STRATEGY, type Run, type RunStrategyLabel } from './runs.ts';

/** Longest `q` a run search takes. */
export const MAX_RUN_SEARCH_LENGTH = 200;
/**
 * Runs one filtered listing reads from the store at most before it answers
 * with what it found and a cursor to go on: a search over a large store costs
 * a bounded amount per request, and the client pages on.
 */
export const MAX_RUNS_EXAMINED = 2000;
/** Runs per page when the store's page size is not given (the RunStore port's default). */
const DEFAULT_LIMIT = 50;
/** Runs read from the store per query while filtering. */
const SCAN_PAGE_SIZE = 200;

/** Filters the store cannot apply: they are applied while its pages are read. */
export interface RunFilter {
  strategy?: RunStrategyLabel | undefined;
  /** Case-insensitive substring of the run's input or id. */
  q?: string | undefined;
}

/** The strategy a run is driven with; undefined for runs stored before settings were kept. */
export function runStrategy(run: Run): RunStrategyLabel | undefined {
  if (run.settings?.gateway !== undefined) return 'gateway';
  return run.settings === undefined ? undefined : (run.settings.strategy ?? DEFAULT_STRATEGY);
}

export function runMatches(run: Run, filter: RunFilter): boolean {
  if (filter.strategy !== undefined && runStrategy(run) !== filter.strategy) return false;
  if (filter.q !== undefined && filter.q !== '') {
    const needle = filter.q.toLowerCase();
    if (!run.input.toLowerCase().includes(needle) && !run.id.toLowerCase().includes(needle)) return false;
  }
  return true;
}

/** A filtered listing: the filter, and how many runs it may read before it answers. */
export interface FilteredListing extends RunFilter {
  /** Runs examined at most (default MAX_RUNS_EXAMINED). */
  maxExamined?: number | undefined;
}

/**
 * One page of runs matching `filter`, read from `list` (a RunStore's
 * listRuns, scoped by the caller) page by page until `limit` runs matched or
 * the store is exhausted. `nextCursor` continues right after the last run
 * examined: when that run sits inside a store page, the store is asked once
 * more for the cursor after it (store cursors are opaque).
 */
export async function listRunsFiltered(
  list: (query: ListRunsQuery) => Promise<RunPage>,
  query: ListRunsQuery,
  filter: FilteredListing,
): Promise<RunPage> {
  if (filter.strategy === undefined && (filter.q === undefined || filter.q === '')) return list(query);
  const limit = Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT));
  const maxExamined = filter.maxExamined ?? MAX_RUNS_EXAMINED;
  const runs: Run[] = [];
  let cursor = query.cursor;
  let examined = 0;
  for (;;) {
    const at = cursor === undefined ? {} : { cursor };
    const page = await list({ ...query, ...at, limit: SCAN_PAGE_SIZE });
    for (const [index, run] of page.runs.entries()) {
      examined += 1;
      if (runMatches(run, filter)) runs.push(run);
      if (runs.length < limit) continue;
      if (index === page.runs.length - 1) return withCursor(runs, page.nextCursor);
      const upTo = await list({ ...query, ...at, limit: index + 1 });
      return withCursor(runs, upTo.nextCursor);
    }
    if (page.nextCursor === undefined) return { runs };
    cursor = page.nextCursor;
    if (examined >= maxExamined) return { runs, nextCursor: cursor };
  }
}

function withCursor(runs: Run[], nextCursor: string | undefined): RunPage {
  return nextCursor === undefined ? { runs } : { runs, nextCursor };
}
