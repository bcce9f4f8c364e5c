import type { RunEvent, RunInput } from '../../core/index.ts';

type ApprovalInput = Extract<RunInput, { type: 'approval' }>;

/** A decision found in a run's log. */
export interface LoggedDecision {
  input: ApprovalInput;
  time: string;
}

/** Every decision in the log, in order: all calls, or those on one call. */
export function decisionsIn(events: readonly RunEvent[], toolCallId?: string): LoggedDecision[] {
  const found: LoggedDecision[] = [];
  for (const event of events) {
    if (event.type !== 'input_received' || event.data.input.type !== 'approval') continue;
    if (toolCallId === undefined || event.data.input.toolCallId === toolCallId)
      found.push({ input: event.data.input, time: event.time });
  }
  return found;
}

/** For people: "approve via link (desk) by alice at 2030-01-01T00:00:00.000Z". */
export function describeDecision(decision: LoggedDecision): string {
  const { input } = decision;
  const source = input.source;
  const via = `via ${source?.via ?? 'api'}${source?.target === undefined ? '' : ` (${source.target})`}`;
  const who = input.userId ?? source?.actor;
  return `${input.decision} ${via}${who === undefined ? '' : ` by ${who}`} at ${decision.time}`;
}
