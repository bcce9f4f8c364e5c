import {
  ToolgateError,
  TERMINAL_RUN_STATUSES,
  draft,
  type EventDraft,
  type PendingApproval,
  type Run,
  type RunInput,
  type RunPatch,
  type RunStore,
} from '../core/index.ts';

/** Decisions re-checked against a run that changed meanwhile (another process answered first). */
const MAX_ATTEMPTS = 3;

/**
 * Records client input on a run: an approval decision for the call it is
 * waiting on, or a user message. Checks the input against the run's state
 * first (`conflict` when it does not apply) so that nothing inconsistent is
 * ever written; a decision is written only if the run has not changed since
 * it was checked (from any process), and moves the run back to `running` in
 * the same step, so the run returned shows it as it stands after the decision.
 * The caller then drives the run again.
 */
export async function submitInput(store: RunStore, runId: string, input: RunInput): Promise<Run> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await submitOnce(store, runId, input);
    } catch (error) {
      // The run changed between the check and the write: check again against what it is now.
      if (!(error instanceof StaleRun) || attempt >= MAX_ATTEMPTS)
        throw error instanceof StaleRun ? error.cause : error;
    }
  }
}

class StaleRun extends Error {}

async function submitOnce(store: RunStore, runId: string, input: RunInput): Promise<Run> {
  const run = await store.getRun(runId);
  if (run === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
  if (TERMINAL_RUN_STATUSES.has(run.status))
    throw new ToolgateError('conflict', `run ${runId} has ended (${run.status}); it takes no more input`);
  const received = draft('input_received', { input });
  if (input.type === 'approval') {
    const pending = pendingFor(run, input);
    const status = draft('run_status', {
      from: run.status,
      to: 'running',
      reason: `${input.decision} for ${pending.name} (${pending.toolCallId})`,
    });
    await appendUnchanged(store, run, {
      drafts: [received, status],
      patch: { status: 'running', pendingApproval: null },
    });
  } else if (input.text.trim() === '') {
    throw new ToolgateError('usage', 'a message needs non-empty "text"');
  } else if (run.status === 'escalated') {
    // A person's message answers the escalation: the run goes on with it.
    const drafts = [
      received,
      draft('user_message', { text: input.text }),
      draft('run_status', { from: run.status, to: 'running', reason: 'a person answered the escalation' }),
    ];
    await appendUnchanged(store, run, { drafts, patch: { status: 'running' } });
  } else {
    await store.append(runId, [received, draft('user_message', { text: input.text })]);
  }
  const after = await store.getRun(runId);
  if (after === undefined) throw new ToolgateError('internal', `run ${runId} vanished from the store`);
  return after;
}

/**
 * The call a decision is for, checked against what the run waits on (`conflict` or `usage` when the decision does not
 * apply).
 */
function pendingFor(run: Run, input: Extract<RunInput, { type: 'approval' }>): PendingApproval {
  const pending = run.pendingApproval;
  if (run.status !== 'waiting_approval' || pending === undefined) {
    throw new ToolgateError('conflict', `run ${run.id} is not waiting for an approval (status ${run.status})`);
  }
  if (pending.toolCallId !== input.toolCallId) {
    throw new ToolgateError(
      'conflict',
      `tool call ${input.toolCallId} is not pending; run ${run.id} ` +
        `is waiting on ${pending.toolCallId} (${pending.name})`,
    );
  }
  if (pending.kind === 'plan' && (input.decision === 'edit' || input.decision === 'mark_done')) {
    throw new ToolgateError(
      'usage',
      `${pending.toolCallId} is a whole plan: approve or reject it. To change it, ` +
        `reject it with a "reason" saying what to change; the model then plans again`,
    );
  }
  if (input.decision === 'edit' && input.arguments === undefined) {
    throw new ToolgateError('usage', 'an "edit" decision needs the new "arguments" object');
  }
  if (input.decision === 'mark_done' && pending.reason !== 'outcome_unknown') {
    throw new ToolgateError(
      'conflict',
      `"mark_done" is only for a call whose outcome is unknown; ${pending.toolCallId} ` +
        `(${pending.name}) waits for approval (${pending.reason}): approve, reject or edit it`,
    );
  }
  if (input.decision !== 'mark_done' && input.result !== undefined) {
    throw new ToolgateError(
      'usage',
      '"result" goes with the "mark_done" decision only (what a person saw of a call that did happen)',
    );
  }
  return pending;
}

/** Appends only if the run did not change since it was checked; StaleRun if it did. */
async function appendUnchanged(
  store: RunStore,
  run: Run,
  write: { drafts: EventDraft[]; patch: RunPatch },
): Promise<void> {
  try {
    await store.append(run.id, write.drafts, write.patch, { expectLastEventId: run.lastEventId });
  } catch (error) {
    if (error instanceof ToolgateError && error.code === 'conflict')
      throw new StaleRun('the run changed', { cause: error });
    throw error;
  }
}
