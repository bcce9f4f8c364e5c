import type { RunEvent } from '../../core/events.ts';
import type { Caller, RunService } from '../../core/ports/run-service.ts';
import type { RunStore } from '../../core/ports/run-store.ts';
import type { Run } from '../../core/runs.ts';
import { holdMessage, RUN_ID_PATTERN } from './hold-message.ts';
import type { LastAssistant } from './openai-messages.ts';
import { CHAT_PROTOCOL } from './openai-request.ts';

/** Runs named by one message that are looked at, at most: a message may quote ids. */
const MAX_CANDIDATES = 3;
const PAGE_SIZE = 500;

/** A run this route answered with a hold message, and the approval_required event that message was about. */
export interface HeldRun {
  run: Run;
  approval: RunEvent<'approval_required'>;
}

/**
 * The run a conversation continues, if any. It is the run named by the
 * conversation's LAST assistant message — by its `toolgate.runId` field, or by
 * a run id in its text — when that run was started by this route (its
 * metadata says `protocol: chat.completions`), is the caller's (another
 * tenant's run is not found), and asked for approval in a way this message
 * answered: the field names the run (and, with `pendingApproval.eventId`, that
 * event), or the text contains the hold message as rendered for one of its
 * approval_required events. The latest such event is the one continued from.
 * Anything else — an answer that merely quotes a run id, a new conversation —
 * starts a new run.
 */
export async function findHeldRun(options: {
  service: Pick<RunService, 'getRun'>;
  store: Pick<RunStore, 'readEvents'>;
  caller: Caller;
  message: LastAssistant | undefined;
  template: string;
}): Promise<HeldRun | undefined> {
  const { message } = options;
  if (message === undefined) return undefined;
  const named = message.runId === undefined ? [] : [message.runId];
  const candidates = [...new Set([...named, ...(message.text.match(RUN_ID_PATTERN) ?? [])])].slice(0, MAX_CANDIDATES);
  for (const runId of candidates) {
    const run = await options.service.getRun(options.caller, runId);
    if (run === undefined || run.metadata?.['protocol'] !== CHAT_PROTOCOL) continue;
    const approvals = await approvalEvents(options.store, runId);
    const byField = runId === message.runId;
    const matching = approvals.filter(
      (event) =>
        (byField && (message.eventId === undefined || message.eventId === event.id)) ||
        message.text.includes(
          holdMessage(options.template, { tool: event.data.name, runId, reason: event.data.reason }),
        ),
    );
    const approval = matching.at(-1);
    if (approval !== undefined) return { run, approval };
  }
  return undefined;
}

async function approvalEvents(
  store: Pick<RunStore, 'readEvents'>,
  runId: string,
): Promise<RunEvent<'approval_required'>[]> {
  const found: RunEvent<'approval_required'>[] = [];
  for (let after = 0; ;) {
    const page = await store.readEvents(runId, { after, limit: PAGE_SIZE });
    for (const event of page) if (event.type === 'approval_required') found.push(event);
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE_SIZE) return found;
    after = last.id;
  }
}
