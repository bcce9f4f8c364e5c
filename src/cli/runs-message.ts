import { TERMINAL_RUN_STATUSES, ToolgateError, type Run, type RunInput } from '../core/index.ts';
import { usageError } from './cli-io.ts';
import { createEventPrinter } from './event-printer.ts';
import type { RunsContext } from './runs-actions.ts';
import { CLI_USER, settleRun } from './runs-settle.ts';

/**
 * `toolgate runs message <run-id> <text>`: answers a run that asked for a
 * person's help (escalated) — or adds a message to one that is running — and
 * carries it on, printing its events as `toolgate run` does.
 */
export async function messageRun(ctx: RunsContext, text: string): Promise<number> {
  const { backend, io } = ctx;
  if (text.trim() === '')
    throw usageError('toolgate runs message needs the text, e.g. toolgate runs message run_01J… "use bob\'s account"');
  const run = await backend.get(ctx.runId);
  if (TERMINAL_RUN_STATUSES.has(run.status))
    throw new ToolgateError('conflict', `run ${run.id} has ended (${run.status}); it takes no more messages`);
  if (run.status === 'waiting_approval') {
    throw new ToolgateError(
      'conflict',
      `run ${run.id} waits for an approval of ${run.pendingApproval?.name ?? 'a call'}: ` +
        `decide it with toolgate runs approve or reject first`,
    );
  }
  const input: RunInput = { type: 'message', text, userId: CLI_USER };
  await backend.prepareDecision(run, input);
  const printer = createEventPrinter({ io, json: ctx.json });
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
