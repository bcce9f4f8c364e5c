import type { RunEvent } from '../../core/index.ts';
import { checkAppendRow, runUpdateSql, type AppendRequest, type AppendState } from '../sql/append-sql.ts';
import { stampEvents } from '../stored-event.ts';
import type { Query } from './postgres-connection.ts';
import { LOCK_RUNS_FOR_APPEND, WRITE_GROUP } from './run-statements.ts';

/** What became of one append of a group: its events, or why it was refused. */
export type AppendOutcome = { ok: true; events: RunEvent[] } | { ok: false; error: unknown };

interface Accepted {
  /** Its place in the group. */
  index: number;
  request: AppendRequest;
  state: AppendState;
  time: string;
  /** The drafts' data as JSON texts. */
  data: string[];
}

/**
 * The body of a group's transaction, for appends to distinct runs: all their runs locked in one statement, each
 * append checked under its row lock (a refused one is left out and rejects alone), then the UPDATE of each append
 * with a patch, and one statement for the rest: the events of all, the other run rows and the notifications. A
 * statement that fails throws: the transaction, and with it every append of the group, is rolled back.
 */
export async function appendGroup(query: Query, requests: readonly AppendRequest[]): Promise<AppendOutcome[]> {
  const rows = await query(LOCK_RUNS_FOR_APPEND, [requests.map((request) => request.runId)]);
  const byRun = new Map(rows.map((row) => [String(row['id']), row]));
  const outcomes: AppendOutcome[] = [];
  const accepted: Accepted[] = [];
  for (const [index, request] of requests.entries()) {
    try {
      // The fencing check, under the row lock every claim needs too: nobody takes the run over until this commits.
      const state = checkAppendRow(byRun.get(request.runId), { request, dialect: 'postgres' });
      // Serialised here, so data that cannot be (a BigInt, a cycle) refuses this append alone.
      const data = request.drafts.map((draft) => JSON.stringify(draft.data));
      accepted.push({ index, request, state, time: new Date(state.now).toISOString(), data });
      // Replaced by its events below, once every statement of the group has run.
      outcomes.push({ ok: true, events: [] });
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
  }
  if (accepted.length === 0) return outcomes;
  await writeGroup(query, accepted);
  for (const { index, request, state, time } of accepted)
    outcomes[index] = {
      ok: true,
      events: stampEvents(request.drafts, { runId: request.runId, first: state.last + 1, time }),
    };
  return outcomes;
}

/**
 * The group's writes: first the UPDATE of each append with a patch or that ends its run (its patch's shape, from
 * runUpdateSql, sets only the columns it changes), then the events, the other run rows and the notifications in one
 * statement.
 */
async function writeGroup(query: Query, accepted: readonly Accepted[]): Promise<void> {
  const events: { runIds: string[]; seqs: number[]; types: string[]; times: string[] } = {
    runIds: [],
    seqs: [],
    types: [],
    times: [],
  };
  const data: string[] = [];
  const advanced: { ids: string[]; lastEventIds: number[]; times: string[] } = { ids: [], lastEventIds: [], times: [] };
  const notices: string[] = [];
  for (const { request, state, time, data: texts } of accepted) {
    const lastEventId = state.last + request.drafts.length;
    for (const [i, draft] of request.drafts.entries()) {
      events.runIds.push(request.runId);
      events.seqs.push(state.last + 1 + i);
      events.types.push(draft.type);
      events.times.push(time);
    }
    data.push(...texts);
    if (request.drafts.length > 0) notices.push(`${request.runId}:${lastEventId}`);
    if (state.endedBy === undefined && patchIsEmpty(request)) {
      advanced.ids.push(request.runId);
      advanced.lastEventIds.push(lastEventId);
      advanced.times.push(time);
    } else {
      const update = runUpdateSql('postgres', {
        runId: request.runId,
        patch: request.patch,
        endedBy: state.endedBy,
        lastEventId,
        time,
      });
      await query(update.sql, update.values);
    }
  }
  // Delivered to listeners at COMMIT, never for a rolled-back append.
  await query(WRITE_GROUP, [
    events.runIds,
    events.seqs,
    events.types,
    events.times,
    data,
    advanced.ids,
    advanced.lastEventIds,
    advanced.times,
    notices,
  ]);
}

function patchIsEmpty(request: AppendRequest): boolean {
  return Object.values(request.patch).every((value) => value === undefined);
}
