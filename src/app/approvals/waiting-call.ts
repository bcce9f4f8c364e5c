import type { PendingApproval, Run } from '../../core/index.ts';
import type { ShownCall } from '../../core/ports/approval-links.ts';
import type { ToolgateConfig } from '../../config/config-schema.ts';

/** The `approvals:` section of the config (docs/approvals.md). */
export type ApprovalsConfig = NonNullable<ToolgateConfig['approvals']>;
/** One `approvals.notify[]` (or `approvals.escalation.notify[]`) entry. */
export type NotifyTarget = NonNullable<ApprovalsConfig['notify']>[number];
/** Why a notification is sent: the call began to wait, a notify-again timeout, or an escalation. */
export type NotifyRound = 'first' | 'again' | 'escalation';

/** A call waiting for a person, as a notification describes it. */
export interface WaitingCall extends ShownCall {
  runId: string;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  kind?: 'plan';
  /** When the call began to wait (the approval_required event's time). */
  since: string;
}

/** The links a notification carries (absent when none could be issued). */
export interface NotifyLinks {
  approve: string;
  reject: string;
  open: string;
  expiresAt: string;
}

/** The call `run` waits on, or undefined when it waits on none. */
export function waitingCallOf(run: Run, since: string): WaitingCall | undefined {
  const pending = run.pendingApproval;
  if (run.status !== 'waiting_approval' || pending === undefined) return undefined;
  return {
    runId: run.id,
    ...(run.tenantId === undefined ? {} : { tenantId: run.tenantId }),
    ...(run.userId === undefined ? {} : { userId: run.userId }),
    ...(run.threadId === undefined ? {} : { threadId: run.threadId }),
    ...shownCall(pending),
    ...(pending.kind === undefined ? {} : { kind: pending.kind }),
    since,
  };
}

/** The call a person is shown of what a run waits on (arguments as recorded: redacted, injected values in place). */
export function shownCall(pending: PendingApproval): ShownCall {
  const { toolCallId, name, arguments: args, effect, reason, detail } = pending;
  return { toolCallId, name, arguments: args, effect, reason, ...(detail === undefined ? {} : { detail }) };
}
