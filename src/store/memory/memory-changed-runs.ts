import {
  RUN_STATUSES,
  ToolgateError,
  copyAsJson,
  type ChangedRunsQuery,
  type Run,
  type RunPage,
} from '../../core/index.ts';
import { decodeRunCursor } from '../run-cursor.ts';
import { changedRunsCursor, isoTime } from '../sql/changed-runs-sql.ts';
import { DEFAULT_PAGE_SIZE } from '../store-defaults.ts';

const KNOWN_STATUSES: ReadonlySet<string> = new Set(RUN_STATUSES);

/** One page of listChangedRuns over the memory store's runs: oldest first by (updatedAt, id), as the SQL stores do. */
export function changedRunsPage(runs: Iterable<Run>, query: ChangedRunsQuery): RunPage {
  const limit = Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE_SIZE));
  const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
  const since = query.since === undefined ? undefined : isoTime(query.since, 'since');
  const before = query.before === undefined ? undefined : isoTime(query.before, 'before');
  for (const status of query.statuses ?? [])
    if (!KNOWN_STATUSES.has(status)) throw new ToolgateError('usage', `listChangedRuns: unknown status "${status}"`);
  const statuses = query.statuses === undefined ? undefined : new Set<string>(query.statuses);
  const matching = [...runs]
    .filter((run) => since === undefined || run.updatedAt >= since)
    .filter((run) => before === undefined || run.updatedAt < before)
    .filter((run) => statuses === undefined || statuses.has(run.status))
    .filter((run) => after === undefined || compare(run, { updatedAt: after.createdAt, id: after.id }) > 0)
    .sort(compare);
  const page = matching.slice(0, limit).map((run) => copyAsJson(run));
  const last = page.at(-1);
  return matching.length > limit && last !== undefined
    ? { runs: page, nextCursor: changedRunsCursor(last) }
    : { runs: page };
}

/** (updatedAt, id) byte-wise, as SQLite compares text and PostgreSQL the COLLATE "C" ids. */
function compare(a: Pick<Run, 'updatedAt' | 'id'>, b: Pick<Run, 'updatedAt' | 'id'>): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}
