import type { ApprovalReason, JsonObject, Run, ToolEffect } from '../../core/index.ts';
import type { ToolgateConfig } from '../../config/config-schema.ts';

/** The `approvals:` section of the config (docs/approvals.md). */
export type ApprovalsConfig = NonNullable<ToolgateConfig['approvals']>;
/** One `approvals.notify[]` (or `approvals.escalation.notify[]`) entry. */
export type NotifyTarget = NonNullable<ApprovalsConfig['notify']>[number];
/** Why a notification is sent: the call began to wait, a notify-again timeout, or an escalation. */
export type NotifyRound = 'first' | 'again' | 'escalation';

/** A call waiting for a person, as a notification describes it. */
export interface WaitingCall {
  runId: string;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  toolCallId: string;
  name: string;
  /** As a person is shown them (the approval_required event's arguments). */
  arguments: JsonObject;
  effect: ToolEffect;
  reason: ApprovalReason;
  detail?: string;
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
    toolCallId: pending.toolCallId,
    name: pending.name,
    arguments: pending.arguments,
    effect: pending.effect,
    reason: pending.reason,
    ...(pending.detail === undefined ? {} : { detail: pending.detail }),
    ...(pending.kind === undefined ? {} : { kind: pending.kind }),
    since,
  };
}
