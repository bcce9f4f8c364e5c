import {
  TERMINAL_RUN_STATUSES,
  ZERO_USAGE,
  draft,
  type ClaimOptions,
  type EventDraft,
  type RunEvent,
  type RunStore,
} from '../core/index.ts';
import { RunWriter } from '../orchestrator/log/run-writer.ts';
import type { OwnedElsewhere, RecoverOptions } from '../orchestrator/run-engine-options.ts';

const LOST_MESSAGE = 'the gateway process serving this MCP session went away; its client was disconnected';

/**
 * A gateway session's run whose gateway went away (its lease expired): no
 * model can drive it and its client is gone. Calls that were sent and never
 * answered are recorded as unknown outcomes (a write may have happened), a
 * held call as refused, and the run fails with `session_lost`. Written
 * through a RunWriter under the lease the caller claimed.
 */
export async function endLostGatewaySession({ store, run, lease, leaseMs }: RecoverOptions): Promise<void> {
  if (TERMINAL_RUN_STATUSES.has(run.status)) return;
  const drafts: EventDraft[] = [...unansweredCalls(await store.readEvents(run.id))];
  drafts.push(
    draft('run_status', { from: run.status, to: 'failed', reason: LOST_MESSAGE }),
    draft('run_failed', {
      error: { code: 'session_lost', message: LOST_MESSAGE },
      usage: ZERO_USAGE,
      steps: run.steps,
    }),
  );
  const writer = new RunWriter({ store, lease, leaseMs, lastEventId: run.lastEventId });
  try {
    await writer.append(drafts, {
      status: 'failed',
      pendingApproval: null,
      error: { code: 'session_lost', message: LOST_MESSAGE },
    });
  } finally {
    writer.close();
  }
}

/** A tool_result for every call of the log that has none: a held call was not run, a sent one may have. */
function* unansweredCalls(events: readonly RunEvent[]): Generator<EventDraft> {
  const open = new Map<string, { name: string; step: number; sent: boolean }>();
  for (const event of events) {
    if (event.type === 'gate_decision' && event.data.decision === 'approval_required')
      open.set(event.data.toolCallId, { name: event.data.name, step: event.data.step, sent: false });
    else if (event.type === 'tool_call')
      open.set(event.data.toolCallId, { name: event.data.name, step: event.data.step, sent: true });
    else if (event.type === 'tool_result') open.delete(event.data.toolCallId);
  }
  for (const [toolCallId, call] of open) {
    const text = call.sent
      ? `${call.name} was sent and no answer was recorded before the gateway went away: it MAY HAVE EXECUTED`
      : `${call.name} was waiting for approval when the gateway went away; it was not run`;
    const error = { code: call.sent ? ('outcome_unknown' as const) : ('cancelled' as const), message: text };
    yield draft('tool_result', {
      step: call.step,
      toolCallId,
      name: call.name,
      ok: false,
      content: [{ type: 'text', text }],
      error,
      latencyMs: 0,
    });
  }
}

/** Runs examined per sweep at most (a sweep runs at start; the rest are found by the next one). */
const SWEEP_LIMIT = 500;

/**
 * Ends gateway sessions left waiting for a decision by a gateway that went
 * away. Recovery claims only runs that are being driven; a session waiting
 * for approval is claimed here, once its gateway's lease has expired (a
 * session whose gateway is alive keeps its lease and is left alone).
 */
export async function sweepLostGatewaySessions(store: RunStore, claim: ClaimOptions): Promise<string[]> {
  const ended: string[] = [];
  let cursor: string | undefined;
  let examined = 0;
  do {
    const page = await store.listRuns({
      status: 'waiting_approval',
      limit: 100,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const run of page.runs) {
      if (run.settings?.gateway === undefined) continue;
      const lease = await store.claimRun(run.id, claim);
      if (lease === undefined) continue;
      try {
        const current = await store.getRun(run.id);
        if (current !== undefined) await endLostGatewaySession({ store, run: current, lease, leaseMs: claim.ttlMs });
        ended.push(run.id);
      } finally {
        await store.releaseRun(lease);
      }
    }
    examined += page.runs.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined && examined < SWEEP_LIMIT);
  return ended;
}

/**
 * Gateway session runs, for the run engine (wired in by the app): their
 * gateway writes them, so the engine never drives one; an engine that holds
 * one's lease found its gateway gone and ends the session.
 */
export const gatewaySessionRuns: OwnedElsewhere = {
  matches: (run) => run.settings?.gateway !== undefined,
  recover: endLostGatewaySession,
};
