import type { AppendFn } from '../log/transition.ts';

/**
 * Asks the model while what the pass holds back is committed (decision 0019):
 * the model's request goes out first, then the commit of the step before
 * (`append([])`) is started, in the same turn, so the request does not wait
 * for it. Started in that order, a request the HTTP client writes in the event
 * loop's check phase (undici checks a reused idle connection there first)
 * goes out before a commit made in that phase (SQLite's group commit) holds
 * the loop. The log's order is kept either way: nothing is appended in
 * between, and whatever the model call appends (its streamed text) is
 * committed after what was held back (the RunWriter commits in order, the
 * held-back events first). Nothing the model is asked depends on that commit
 * being durable: a crash before it lands loses the step, and the run is taken
 * up again from the log, as after a crash a moment earlier.
 *
 * With `alongside` false the commit is awaited before the model is asked (as
 * when several runs are driven: see PassInput.commitAlongside).
 *
 * Both are awaited before the answer is used, and the commit's failure wins:
 * an answer is never recorded ahead of what preceded it, nor without it. A
 * lost lease or a changed log aborts the request through the pass's signal;
 * any other store failure is reported once the model has answered.
 */
export async function askWhileCommitting<T>(append: AppendFn, ask: () => Promise<T>, alongside = true): Promise<T> {
  if (!alongside) {
    await append([]);
    return ask();
  }
  // Called at once (an async function runs up to its first await); a synchronous throw becomes a rejection.
  const asking = (async () => ask())();
  const committing = append([]);
  const [committed, asked] = await Promise.allSettled([committing, asking]);
  if (committed.status === 'rejected') throw committed.reason;
  if (asked.status === 'rejected') throw asked.reason;
  return asked.value;
}
