/**
 * Appends to the PostgreSQL store are committed in groups: the appends of many
 * runs share one transaction, so one commit and one WAL flush, instead of one
 * each (decision 0028). Appends made during one turn of the event loop start a
 * group at the end of that turn (`setImmediate`); while groups are in flight,
 * new appends wait for the next one. A few groups may be in flight at once, so
 * one slow flush does not hold every run up. An append's promise settles only
 * after the commit that holds it: resolved means committed, and a refused append
 * (not_found, conflict, lease_lost) is refused alone. A group holds at most one
 * append per run; a run's later append waits for the next group, so a run's
 * appends keep their order.
 */
import { ToolgateError, type RunEvent } from '../../core/index.ts';
import type { AppendRequest } from '../sql/append-sql.ts';
import { appendGroup, type AppendOutcome } from './postgres-append-group.ts';
import type { PostgresConnection } from './postgres-connection.ts';

/** How groups are formed. */
export interface GroupCommitLimits {
  /** Groups whose transaction may be open at once (each holds one pooled connection). */
  maxGroupsInFlight: number;
  /** Appends in one group at most; the rest wait for the next. */
  maxGroupSize: number;
}

/** Appends in one group at most: bounds how long a group holds its runs' row locks and how big its statements get. */
export const MAX_GROUP_SIZE = 500;

/** Half the pool by default: groups in flight leave connections to reads, claims and new runs. */
export function defaultGroupLimits(poolSize: number): GroupCommitLimits {
  return { maxGroupsInFlight: Math.max(1, Math.floor(poolSize / 2)), maxGroupSize: MAX_GROUP_SIZE };
}

export interface PostgresGroupCommitInit {
  connection: PostgresConnection;
  /** Hears each append that was kept, after its commit and before its promise resolves. */
  committed: (runId: string, events: RunEvent[]) => void;
  limits?: Partial<GroupCommitLimits>;
}

interface Pending {
  request: AppendRequest;
  resolve: (events: RunEvent[]) => void;
  reject: (error: unknown) => void;
}

export class PostgresGroupCommit {
  readonly #db: PostgresConnection;
  readonly #committed: (runId: string, events: RunEvent[]) => void;
  readonly #limits: GroupCommitLimits;
  #queue: Pending[] = [];
  #scheduled = false;
  #inFlight = 0;
  readonly #start = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(init: PostgresGroupCommitInit) {
    this.#db = init.connection;
    this.#committed = init.committed;
    const limits = { ...defaultGroupLimits(init.connection.poolSize), ...init.limits };
    // At least one of each, or appends would wait for ever (no group in flight) or groups be empty.
    this.#limits = {
      maxGroupsInFlight: Math.max(1, Math.floor(limits.maxGroupsInFlight)),
      maxGroupSize: Math.max(1, Math.floor(limits.maxGroupSize)),
    };
  }

  /** Queues an append for the next group; resolves with its events once that group has committed. */
  add(request: AppendRequest): Promise<RunEvent[]> {
    return new Promise<RunEvent[]>((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      this.#schedule();
    });
  }

  /** Starts groups for what is queued now, as many as may be in flight (the end of the turn does it otherwise). */
  flush(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#limits.maxGroupsInFlight) {
      const group = this.#take();
      this.#inFlight += 1;
      void this.#commit(group)
        // #commit settles every append itself; this only keeps a bug there from leaving one unsettled.
        .catch((error: unknown) => {
          for (const item of group) item.reject(error);
        })
        .finally(() => {
          this.#inFlight -= 1;
          // At the end of the turn, not now: the callers this group just answered may append again first.
          this.#schedule();
        });
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(this.#start);
  }

  /** The oldest queued appends, one per run; a run's later append stays queued, in its place, for the next group. */
  #take(): Pending[] {
    const group: Pending[] = [];
    const rest: Pending[] = [];
    const runs = new Set<string>();
    for (const item of this.#queue) {
      if (group.length < this.#limits.maxGroupSize && !runs.has(item.request.runId)) {
        runs.add(item.request.runId);
        group.push(item);
      } else rest.push(item);
    }
    this.#queue = rest;
    return group;
  }

  async #commit(group: readonly Pending[]): Promise<void> {
    const [first] = group;
    const action =
      group.length === 1 && first !== undefined
        ? `append events to run ${first.request.runId}`
        : `append events to ${group.length} runs`;
    let outcomes: AppendOutcome[];
    try {
      outcomes = await this.#db.transaction(action, (query) =>
        appendGroup(
          query,
          group.map((item) => item.request),
        ),
      );
    } catch (error) {
      // A statement the database refused ('internal': an answer that will not change, such as text PostgreSQL cannot
      // store) may be one append's doing: each is tried again alone, so one bad append cannot sink the others. The
      // transaction was rolled back, so nothing is written twice. A database that is unavailable, or a connection lost
      // (when the commit may or may not have landed), fails the whole group, as it would each append.
      if (group.length > 1 && error instanceof ToolgateError && error.code === 'internal') {
        // One after the other, in this group's slot: the retries never hold more connections than the group did.
        for (const item of group) await this.#commit([item]);
        return;
      }
      for (const item of group) item.reject(namingRun(error, { action, runId: item.request.runId }));
      return;
    }
    for (const [i, item] of group.entries()) {
      const outcome = outcomes[i];
      if (outcome === undefined) item.reject(new Error('the group commit returned no outcome for an append'));
      else if (outcome.ok) {
        this.#committed(item.request.runId, outcome.events);
        item.resolve(outcome.events);
      } else item.reject(this.#db.failure(outcome.error, `append events to run ${item.request.runId}`));
    }
  }
}

/**
 * A failure of the whole group, told to each of its appends as its own: "could not append events to run <id>", as an
 * append alone would have said, so that whoever reads it (a run's log line, a caller) sees which run it concerns.
 */
function namingRun(error: unknown, where: { action: string; runId: string }): unknown {
  if (!(error instanceof ToolgateError)) return error;
  const own = `append events to run ${where.runId}`;
  if (where.action === own || !error.message.includes(`could not ${where.action}`)) return error;
  const message = error.message.replace(`could not ${where.action}`, `could not ${own}`);
  return new ToolgateError(error.code, message, {
    cause: error,
    ...(error.details === undefined ? {} : { details: error.details }),
  });
}
