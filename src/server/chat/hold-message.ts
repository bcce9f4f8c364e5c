import type { ApprovalReason } from '../../core/events.ts';

/** `chat.approvalMessage` when none is configured. */
export const DEFAULT_APPROVAL_MESSAGE =
  "The call to {tool} needs a person's approval. It waits in run {runId}; once it is approved or rejected " +
  '(console, `toolgate runs approve {runId}`, or the runs API), send another message to continue.';

/** `chat.approvalTimeoutMs` when none is configured: how long `toolgate.wait` holds a request open. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** A run id as the hold message names it. */
export const RUN_ID_PATTERN = /\brun_[0-9a-f]{24}\b/g;

const REASON_WORDS: Record<ApprovalReason, string> = {
  policy: 'its tool rule asks for approval',
  untrusted_output: 'it would change something after reading untrusted tool output',
  outcome_unknown: 'an earlier attempt may have happened (its outcome is unknown)',
};

/** The answer that tells the client a call waits: `{tool}`, `{runId}` and `{reason}` filled in. */
export function holdMessage(template: string, values: { tool: string; runId: string; reason: ApprovalReason }): string {
  return template.replace(/\{(tool|runId|reason)\}/g, (_whole, key: string) => {
    if (key === 'tool') return values.tool;
    if (key === 'runId') return values.runId;
    return REASON_WORDS[values.reason];
  });
}
