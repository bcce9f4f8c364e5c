import type { Caller, RunService } from '../../core/ports/run-service.ts';
import type { RunStore } from '../../core/ports/run-store.ts';
import type { PendingApproval } from '../../core/runs.ts';
import { ChatAnswer, type AnswerDelta } from './chat-answer.ts';
import { followRun } from './follow-run.ts';
import { holdMessage } from './hold-message.ts';

export interface FollowAnswerOptions {
  service: Pick<RunService, 'getRun'>;
  store: Pick<RunStore, 'readEvents' | 'subscribe'>;
  caller: Caller;
  runId: string;
  /** Follow the events after this id. */
  after: number;
  pollMs: number;
  /** Hold through approvals (`toolgate.wait`) instead of answering with the hold message. */
  wait: boolean;
  /** The hold message (`chat.approvalMessage`) and how long `wait` waits for a decision. */
  approvalMessage: string;
  approvalTimeoutMs: number;
  /** The client went away, or the server is shutting down: stop following. */
  signal: AbortSignal;
  /** Deltas as they come (a stream writes them out; a plain answer has no use for them). */
  onDelta?: (deltas: AnswerDelta[]) => Promise<void>;
}

/**
 * Follows a run until its answer to the chat: the run's end (an answer,
 * client tool calls, a failure) or a call that waits for a person. An
 * approval_required that is no longer pending (decided since: a history being
 * caught up on) is passed over. With `wait`, a pending call is waited for up to
 * approvalTimeoutMs, and then answered with the hold message. Returns with no
 * `end` only when `signal` stopped it.
 */
export async function followAnswer(options: FollowAnswerOptions): Promise<ChatAnswer> {
  const answer = new ChatAnswer();
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal.addEventListener('abort', onAbort);
  if (options.signal.aborted) stop.abort();
  const emit = async (deltas: AnswerDelta[]): Promise<void> => {
    if (deltas.length > 0) await options.onDelta?.(deltas);
  };
  const hold = (pending: PendingApproval): AnswerDelta[] =>
    answer.hold(
      holdMessage(options.approvalMessage, { tool: pending.name, runId: options.runId, reason: pending.reason }),
      pending,
    );
  let timer: NodeJS.Timeout | undefined;
  // Set from the timer: a holder, so the check after the loop reads what the callback wrote.
  const timedOut: { pending?: PendingApproval } = {};
  try {
    const events = followRun(options.store, {
      runId: options.runId,
      after: options.after,
      signal: stop.signal,
      pollMs: options.pollMs,
    });
    for await (const event of events) {
      if (event.type === 'approval_required') {
        const run = await options.service.getRun(options.caller, options.runId);
        const pending = run?.status === 'waiting_approval' ? run.pendingApproval : undefined;
        if (pending?.eventId !== event.id) continue;
        if (!options.wait) {
          await emit(hold(pending));
          break;
        }
        clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut.pending = pending;
          stop.abort();
        }, options.approvalTimeoutMs);
        continue;
      }
      // The decision came: the wait is over.
      if (event.type === 'run_status' && event.data.from === 'waiting_approval') clearTimeout(timer);
      await emit(answer.push(event));
    }
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
  if (answer.end === undefined && timedOut.pending !== undefined && !options.signal.aborted)
    await emit(hold(timedOut.pending));
  return answer;
}
