import { ToolgateError, type PendingApproval, type Run, type RunEvent, type RunInput } from '../core/index.ts';
import { EXIT, optionalString } from './cli-io.ts';
import { createEventPrinter } from './event-printer.ts';
import type { RunsContext } from './runs-actions.ts';
import { CLI_USER, settleRun, type ApprovalInput } from './runs-settle.ts';

export type DecisionVerb = 'approve' | 'reject' | 'mark-done';

/**
 * `toolgate runs approve|reject|mark-done <id>`: records the decision on the
 * call the run waits for, then carries the run on — driven here for a local
 * store, followed on a server — printing its events as `toolgate run` does,
 * and asking on a terminal if it waits again.
 */
export async function decideRun(ctx: RunsContext, verb: DecisionVerb): Promise<number> {
  const { backend, io } = ctx;
  const run = await backend.get(ctx.runId);
  const pending = run.pendingApproval;
  if (run.status !== 'waiting_approval' || pending === undefined) {
    throw new ToolgateError(
      'conflict',
      `run ${run.id} is not waiting for an approval (it is ${run.status}); nothing to ${verb}`,
    );
  }
  const input = decisionFor({ verb, pending, values: ctx.values });
  const printer = createEventPrinter({ io, json: ctx.json });
  if (isGatewaySession(run)) return decideGatewayCall(ctx, { run, input, printer });
  await backend.prepareDecision(run, input);
  // The call being decided, as `toolgate run` showed it: what the gate did to it and why it waits.
  if (!ctx.json) for (const event of decisionContext(await backend.events(run.id, 0), pending)) printer.print(event);
  const hooks = { onEvent: printer.print, ...(io.signal === undefined ? {} : { signal: io.signal }) };
  const decide = (next: RunInput): Promise<Run> => backend.decide(run.id, next, hooks);
  return settleRun({
    run: await decide(input),
    decide,
    cancel: (reason) => backend.cancel(run.id, reason),
    printer,
    io,
    resume: ctx.resume,
  });
}

export function decisionFor(options: {
  verb: DecisionVerb;
  pending: PendingApproval;
  values: Record<string, unknown>;
}): ApprovalInput {
  const { verb, pending, values } = options;
  const base = { type: 'approval', toolCallId: pending.toolCallId, userId: CLI_USER } as const;
  const reason = optionalString(values, 'reason');
  switch (verb) {
    case 'approve':
      return { ...base, decision: 'approve', ...(reason === undefined ? {} : { reason }) };
    case 'reject':
      return { ...base, decision: 'reject', reason: reason ?? 'rejected by the operator' };
    case 'mark-done': {
      if (pending.reason !== 'outcome_unknown') {
        throw new ToolgateError(
          'conflict',
          `mark-done is for a call whose outcome is unknown; ${pending.name} ` +
            `waits for approval (${pending.reason}): approve or reject it`,
        );
      }
      const result = optionalString(values, 'result');
      return { ...base, decision: 'mark_done', ...(result === undefined ? {} : { result }) };
    }
  }
}

/** The pending call's last gate_decision and its approval_required event, in log order. */
export function decisionContext(events: readonly RunEvent[], pending: PendingApproval): RunEvent[] {
  const gate = events.findLast(
    (e) => e.type === 'gate_decision' && e.data.toolCallId === pending.toolCallId && e.id < pending.eventId,
  );
  const ask = events.find((e) => e.id === pending.eventId && e.type === 'approval_required');
  return [...(gate === undefined ? [] : [gate]), ...(ask === undefined ? [] : [ask])];
}

/** How long `runs approve` waits for a gateway to run the call it decided. */
const GATEWAY_RESULT_WAIT_MS = 30_000;
const GATEWAY_POLL_MS = 200;

/** A gateway session's run (its summary over HTTP says `strategy: gateway`). */
function isGatewaySession(run: Run): boolean {
  return run.settings?.gateway !== undefined || ('strategy' in run && run.strategy === 'gateway');
}

/**
 * A gateway session's call is run by the gateway that holds the session, not
 * here: the decision is recorded, then the call's result is awaited in the
 * log and printed (exit 0 when it ran, 1 when it failed or was refused).
 */
async function decideGatewayCall(
  ctx: RunsContext,
  call: { run: Run; input: ApprovalInput; printer: ReturnType<typeof createEventPrinter> },
): Promise<number> {
  const { backend, io } = ctx;
  const { run, input, printer } = call;
  let after = (await backend.record(run.id, input)).lastEventId - 2;
  const deadline = Date.now() + GATEWAY_RESULT_WAIT_MS;
  while (Date.now() < deadline && io.signal?.aborted !== true) {
    for (const event of await backend.events(run.id, Math.max(0, after))) {
      after = event.id;
      printer.print(event);
      if (event.type === 'tool_result' && event.data.toolCallId === input.toolCallId)
        return event.data.ok ? EXIT.ok : EXIT.failed;
    }
    await new Promise((resolve) => setTimeout(resolve, GATEWAY_POLL_MS));
  }
  io.stderr.write(
    `the decision is recorded; the gateway serving run ${run.id} runs the call ` +
      `when it sees it (its result goes to the MCP client and the run's log)\n`,
  );
  return EXIT.ok;
}
