import type { RunEvent } from '../../core/index.ts';
import type { ApprovalsConfig, NotifyRound, NotifyTarget } from './waiting-call.ts';

/** A call's timeouts stop after this many: the last one rejects it, whatever `onTimeout` says (notify-again). */
export const MAX_TIMEOUT_ROUNDS = 10;

export type TimeoutAction = 'reject' | 'escalate' | 'notify-again';

/** What the log says of one waiting call: when it began to wait and each timeout so far, in order. */
export interface CallProgress {
  runId: string;
  toolCallId: string;
  /** Milliseconds since the epoch. */
  since: number;
  timeouts: { action: TimeoutAction; at: number; round: number }[];
  /** The deliveryIds already recorded as approval_notified for this call. */
  notified: Set<string>;
}

/** The call's next timeout: when, what it does, and the setting that chose the wait (for the decision's reason). */
export interface NextTimeout {
  at: number;
  action: TimeoutAction;
  /** approval_timed_out's `round`. */
  round: number;
  afterMs: number;
  setting: 'approvals.timeoutMs' | 'approvals.escalation.timeoutMs';
}

/** The notification round a call is in now, and the targets it goes to. */
export interface CurrentRound {
  round: NotifyRound;
  /** The timeout round that began a notify-again round (it tells the repeats' delivery ids apart). */
  sequence?: number;
  targets: readonly NotifyTarget[];
  /** When the round began (ms since the epoch). */
  since: number;
}

/** The progress of the call `toolCallId` from its log (events from its approval_required on). */
export function callProgress(events: readonly RunEvent[], toolCallId: string): CallProgress | undefined {
  let progress: CallProgress | undefined;
  for (const event of events) {
    if (event.type === 'approval_required' && event.data.toolCallId === toolCallId) {
      // The latest wait counts: a call asked again (an unknown outcome after approval) starts over.
      progress = { runId: event.runId, toolCallId, since: Date.parse(event.time), timeouts: [], notified: new Set() };
    } else if (progress !== undefined && event.type === 'approval_timed_out' && event.data.toolCallId === toolCallId) {
      // Measured from the wait's start by the clock of the instance that acted: instances' clocks may differ.
      progress.timeouts.push({
        action: event.data.action,
        at: progress.since + event.data.waitedMs,
        round: event.data.round,
      });
    } else if (progress !== undefined && event.type === 'approval_notified' && event.data.toolCallId === toolCallId) {
      progress.notified.add(event.data.deliveryId);
    }
  }
  return progress;
}

/** The next timeout of a call, or undefined when none comes (no timeoutMs, or the last one rejected it). */
export function nextTimeout(config: ApprovalsConfig, progress: CallProgress): NextTimeout | undefined {
  if (config.timeoutMs === undefined) return undefined;
  const last = progress.timeouts.at(-1);
  if (last?.action === 'reject') return undefined;
  const escalated = progress.timeouts.some((t) => t.action === 'escalate');
  const afterMs = escalated ? (config.escalation?.timeoutMs ?? config.timeoutMs) : config.timeoutMs;
  const chosen: TimeoutAction = escalated ? (config.escalation?.onTimeout ?? 'reject') : (config.onTimeout ?? 'reject');
  const round = progress.timeouts.length + 1;
  return {
    at: (last?.at ?? progress.since) + afterMs,
    action: round >= MAX_TIMEOUT_ROUNDS ? 'reject' : chosen,
    round,
    afterMs,
    setting: escalated ? 'approvals.escalation.timeoutMs' : 'approvals.timeoutMs',
  };
}

/** The round a call's notifications are in (undefined once a timeout rejected it). */
export function currentRound(config: ApprovalsConfig, progress: CallProgress): CurrentRound | undefined {
  const last = progress.timeouts.at(-1);
  const escalated = progress.timeouts.some((t) => t.action === 'escalate');
  const targets = (escalated ? config.escalation?.notify : config.notify) ?? [];
  if (last === undefined) return { round: 'first', targets, since: progress.since };
  if (last.action === 'reject') return undefined;
  if (last.action === 'escalate') return { round: 'escalation', targets, since: last.at };
  return { round: 'again', sequence: last.round, targets, since: last.at };
}

/** The `webhook-id` of one delivery: stable across attempts, restarts and instances. */
export function deliveryId(options: { runId: string; toolCallId: string; target: string } & CurrentRoundKey): string {
  const base = `${options.runId}.${options.toolCallId}.${options.target}.${options.round}`;
  return options.sequence === undefined ? base : `${base}.${options.sequence}`;
}

type CurrentRoundKey = Pick<CurrentRound, 'round' | 'sequence'>;
