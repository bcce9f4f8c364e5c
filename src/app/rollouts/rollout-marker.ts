import {
  ROLLOUTS_THREAD_ID,
  draft,
  newId,
  type EventDraft,
  type Run,
  type RunEvent,
  type RunEventDataMap,
  type RunStore,
} from '../../core/index.ts';

export type RolledBack = RunEventDataMap['rollout_rolled_back'];

/** What a marker run's model field says: no model ever drives it. */
const MARKER_MODEL = 'none:rollouts';
/** Owner of the lease a store without importRun holds for the moment between creating and ending the marker. */
const MARKER_OWNER = 'toolgate:rollouts';

/**
 * Records a rollback as a run of the rollouts thread that has already ended: `rollout_rolled_back`, then its
 * completion. Stores that import runs write it whole, in one atomic step, so it is never a queued run a scheduler
 * could claim and drive; other stores (memory: one process) create it claimed and end it with the next write.
 */
export async function recordRollback(store: RunStore, data: RolledBack): Promise<Run> {
  const drafts: EventDraft[] = [
    draft('rollout_rolled_back', data),
    draft('run_status', { from: 'queued', to: 'completed', reason: 'rollout rolled back' }),
    draft('run_completed', { output: data.message, usage: ZERO_USAGE, steps: 0 }),
  ];
  const init = {
    input: `rollout ${data.rollout} rolled back`,
    model: MARKER_MODEL,
    threadId: ROLLOUTS_THREAD_ID,
  };
  if (store.importRun !== undefined) {
    const now = new Date().toISOString();
    const run: Run = {
      ...init,
      id: newId('run'),
      status: 'completed',
      output: data.message,
      createdAt: now,
      updatedAt: now,
      usage: ZERO_USAGE,
      steps: 0,
      lastEventId: drafts.length,
    };
    const events = drafts.map((d, i): RunEvent => ({ ...d, id: i + 1, runId: run.id, time: now }));
    await store.importRun(run, events);
    return run;
  }
  const claim = { owner: MARKER_OWNER, ttlMs: 60_000 };
  const { run, lease } =
    store.createAndClaimRun === undefined
      ? await createThenClaim(store, init, claim)
      : await store.createAndClaimRun(init, claim);
  await store.append(
    run.id,
    drafts,
    { status: 'completed', output: data.message },
    lease === undefined ? {} : { lease },
  );
  return { ...run, status: 'completed', output: data.message, lastEventId: drafts.length };
}

async function createThenClaim(
  store: RunStore,
  init: { input: string; model: string; threadId: string },
  claim: { owner: string; ttlMs: number },
): ReturnType<NonNullable<RunStore['createAndClaimRun']>> {
  const run = await store.createRun(init);
  return { run, lease: await store.claimRun(run.id, claim) };
}

/**
 * Every rollback recorded on the rollouts thread, oldest first. A page at a time; a marker whose log cannot be read
 * is skipped (it is read again next time).
 */
export async function readRollbacks(store: RunStore): Promise<{ at: string; data: RolledBack }[]> {
  const found: { at: string; data: RolledBack }[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({
      threadId: ROLLOUTS_THREAD_ID,
      limit: 200,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const run of page.runs) {
      if (run.tenantId !== undefined) continue;
      for (const event of await store.readEvents(run.id))
        if (event.type === 'rollout_rolled_back') found.push({ at: event.time, data: event.data });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return found.sort((a, b) => a.at.localeCompare(b.at));
}

const ZERO_USAGE = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
