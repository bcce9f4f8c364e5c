// One line per thing that happened around a waiting call besides the decision itself: a notification sent or
// failed, a timeout and what it did. Pure: the console and the CLI word them alike.
import type { DecisionSource, RunEvent } from '../core/events.ts';

/** "notified desk (delivered)", "notifying managers failed after 5 attempts: HTTP 500" (again / escalation). */
export function notifiedNote(data: RunEvent<'approval_notified'>['data']): string {
  const round = data.round === 'again' ? ' again' : data.round === 'escalation' ? ' (escalation)' : '';
  if (data.outcome === 'delivered') return `notified ${data.target}${round} (delivered)`;
  const last = data.failures?.at(-1);
  const why = last === undefined ? '' : `: ${last.status === undefined ? last.error : `HTTP ${last.status}`}`;
  const attempts = `${data.attempts} attempt${data.attempts === 1 ? '' : 's'}`;
  return `notifying ${data.target}${round} failed after ${attempts}${why}`;
}

const TIMEOUT_ACTIONS = { reject: 'rejected', escalate: 'escalated', 'notify-again': 'notified again' } as const;

/** "timed out after 10 min → escalated". */
export function timedOutNote(data: RunEvent<'approval_timed_out'>['data']): string {
  return `timed out after ${duration(data.waitedMs)} → ${TIMEOUT_ACTIONS[data.action]}`;
}

/** "via link (desk)", "via chat (desk)", "" for the runs API (who decided is shown beside it). */
export function sourceNote(source: DecisionSource | undefined): string {
  if (source === undefined || source.via === 'api') return '';
  return `via ${source.via}${source.target === undefined ? '' : ` (${source.target})`}`;
}

function duration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}
