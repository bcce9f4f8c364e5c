// Test-only: runs of every kind retention tells apart, in a real store (used by the retention tests).
import { draft, type EventDraft, type Run, type RunEvent, type RunStore } from '../../core/index.ts';

export interface SeededRuns {
  completed: string;
  failed: string;
  cancelled: string;
  /** Completed, but a person was asked to approve in it. */
  approved: string;
  /** Waiting for an approval: never pruned. */
  waiting: string;
}

const USAGE = { promptTokens: 1, completionTokens: 2, totalTokens: 3 };
const APPROVAL = draft('approval_required', {
  step: 1,
  toolCallId: 'c1',
  name: 'place_order',
  arguments: { mw: 10 },
  effect: 'write',
  reason: 'policy',
});

/** One run of each kind, each with a few events, `filler` bytes of text in its first one. */
export async function seedRuns(store: RunStore, filler = 0): Promise<SeededRuns> {
  const make = async (status: Run['status'], drafts: EventDraft[]): Promise<string> => {
    const run = await store.createRun({ input: 'buy 10 MW', model: 'scripted:test', tenantId: 'acme' });
    await store.append(run.id, [draft('user_message', { text: `buy 10 MW ${'x'.repeat(filler)}` })], {
      status: 'running',
    });
    await store.append(run.id, drafts, { status });
    return run.id;
  };
  const done = draft('run_completed', { output: 'done', usage: USAGE, steps: 1 });
  return {
    completed: await make('completed', [done]),
    failed: await make('failed', [draft('run_failed', { error: { code: 'internal', message: 'boom' } })]),
    cancelled: await make('cancelled', [draft('run_cancelled', { reason: 'stop' })]),
    approved: await make('completed', [APPROVAL, done]),
    waiting: await make('waiting_approval', [APPROVAL]),
  };
}

/** The run and its whole log, as the store has them. */
export async function recorded(store: RunStore, runId: string): Promise<{ run: Run | undefined; events: RunEvent[] }> {
  return { run: await store.getRun(runId), events: await store.readEvents(runId) };
}
