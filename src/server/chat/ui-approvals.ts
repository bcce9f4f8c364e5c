import { ToolgateError } from '../../core/errors.ts';
import type { Caller, RunService } from '../../core/ports/run-service.ts';
import type { RunStore } from '../../core/ports/run-store.ts';
import type { UiApprovalResponse } from './ui-request.ts';

/** Events read from the store per round trip while looking for approval requests. */
const PAGE_SIZE = 500;

export interface ApprovalScope {
  service: RunService;
  store: Pick<RunStore, 'readEvents'>;
  caller: Caller;
  chatId: string;
}

/** The run the decisions were for, and the last of its approval requests they answer: its stream goes on after it. */
export interface DecidedApprovals {
  runId: string;
  after: number;
}

interface Target extends UiApprovalResponse {
  runId: string;
  toolCallId: string;
}

/**
 * Submits the decisions of an assistant message on the calls its run holds. Each approval id names its run and call
 * (`<runId>.<toolCallId>`, as toolgate sent it); all must be of one run of this chat, and of calls the run asked a
 * person about (anything else is a 404 or 409, with why). A call no longer waiting — decided already, by this page
 * before or by someone else — is left as it is: the stream that follows shows what was decided.
 */
export async function decideApprovals(
  scope: ApprovalScope,
  responses: readonly UiApprovalResponse[],
): Promise<DecidedApprovals> {
  const targets = responses.map(target);
  const runId = targets[0]?.runId ?? '';
  const other = targets.find((t) => t.runId !== runId);
  if (other !== undefined) {
    throw new ToolgateError(
      'usage',
      `the approvals of one message are of one run; "${other.approvalId}" is of run ${other.runId}, not ${runId}`,
    );
  }
  const run = await scope.service.getRun(scope.caller, runId);
  if (run === undefined) {
    throw new ToolgateError('not_found', `approval "${targets[0]?.approvalId ?? ''}": run ${runId} not found`);
  }
  if (run.threadId !== scope.chatId) {
    throw new ToolgateError(
      'conflict',
      `approval "${targets[0]?.approvalId ?? ''}" is of run ${runId}, which belongs to another chat, ` +
        `not "${scope.chatId}"`,
    );
  }
  const asked = await approvalRequests(scope.store, runId);
  for (const t of targets) {
    if (!asked.has(t.toolCallId)) {
      throw new ToolgateError(
        'not_found',
        `approval "${t.approvalId}": run ${runId} never asked a person about call ${t.toolCallId}`,
      );
    }
  }
  const ordered = [...targets].sort((a, b) => (asked.get(a.toolCallId) ?? 0) - (asked.get(b.toolCallId) ?? 0));
  for (const t of ordered) await submitIfWaiting(scope, t);
  const last = ordered.at(-1);
  return { runId, after: last === undefined ? 0 : (asked.get(last.toolCallId) ?? 0) };
}

/** The approval id toolgate sent, split into its run and call. */
function target(response: UiApprovalResponse): Target {
  const dot = response.approvalId.indexOf('.');
  if (dot <= 0 || dot === response.approvalId.length - 1) {
    throw new ToolgateError(
      'not_found',
      `approval "${response.approvalId.slice(0, 80)}" was not sent by toolgate ` +
        '(its approval ids are "<run id>.<tool call id>")',
    );
  }
  return { ...response, runId: response.approvalId.slice(0, dot), toolCallId: response.approvalId.slice(dot + 1) };
}

async function submitIfWaiting(scope: ApprovalScope, t: Target): Promise<void> {
  const run = await scope.service.getRun(scope.caller, t.runId);
  if (run?.status !== 'waiting_approval' || run.pendingApproval?.toolCallId !== t.toolCallId) return;
  try {
    await scope.service.submitInput(scope.caller, t.runId, {
      type: 'approval',
      toolCallId: t.toolCallId,
      decision: t.approved ? 'approve' : 'reject',
      ...(t.reason === undefined ? {} : { reason: t.reason }),
      source: { via: 'ui' },
      // Who decided is recorded in the run's log, and it is the caller, never a body field.
      ...(scope.caller.userId === undefined ? {} : { userId: scope.caller.userId }),
    });
  } catch (error) {
    // Decided meanwhile (another tab, the console): what was decided stands, and the stream shows it.
    if (!(error instanceof ToolgateError && error.code === 'conflict')) throw error;
  }
}

/** The calls the run asked a person about, with the id of each approval_required event. */
async function approvalRequests(store: Pick<RunStore, 'readEvents'>, runId: string): Promise<Map<string, number>> {
  const asked = new Map<string, number>();
  let after = 0;
  for (;;) {
    const page = await store.readEvents(runId, { after, limit: PAGE_SIZE });
    for (const event of page) {
      if (event.type === 'approval_required') asked.set(event.data.toolCallId, event.id);
    }
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE_SIZE) return asked;
    after = last.id;
  }
}
