import { draft, type RunEventDataMap } from '../../core/index.ts';
import type { ConversationState } from '../state/run-state.ts';
import { transition, type AppendFn } from '../log/transition.ts';

/**
 * Makes the run wait for a person's decision on one call (or a whole plan):
 * the approval_required event, and the run's pendingApproval pointing at it.
 */
export async function askApproval(
  run: { state: ConversationState; append: AppendFn },
  ask: RunEventDataMap['approval_required'],
  why: string,
): Promise<void> {
  const { step: _step, ...pending } = ask;
  // No event id here: the run writer points pendingApproval at the approval_required event where the append lands.
  await transition(run.append, run.state, {
    to: 'waiting_approval',
    events: [draft('approval_required', ask)],
    reason: why,
    patch: { pendingApproval: pending },
  });
}
