import type { Run, RunInput } from '../core/index.ts';
import { askApproval, askLine } from './ask-approval.ts';
import { EXIT, type CliIO } from './cli-io.ts';
import type { EventPrinter } from './event-printer.ts';
import { escalatedMessage, waitingMessage } from './runs-hints.ts';

export type ApprovalInput = Extract<RunInput, { type: 'approval' }>;

/** Who decides in the CLI, as the run's log records it. */
export const CLI_USER = 'cli';

export interface SettleOptions {
  /** The run as it stands: ended, or waiting for a decision. */
  run: Run;
  /**
   * Records a decision on the pending call (or a message for an escalated run) and carries the run on until it ends or
   * waits again.
   */
  decide: (input: RunInput) => Promise<Run>;
  /** Cancels the run (a person at the terminal declined to help an escalated run). */
  cancel?: (reason: string) => Promise<Run>;
  printer: EventPrinter;
  io: CliIO;
  /** Approve every call that needs approval (never one whose outcome is unknown). */
  yes?: boolean;
  /** As waitingMessage's `resume`; undefined: the run cannot be continued later. */
  resume: string | undefined;
  /** The run was started by this command (`toolgate run`): the message also says how to avoid the wait. */
  fromRun?: boolean;
}

/**
 * Carries a run through its approvals — `--yes`, or a person at the
 * terminal — until it ends (exit 0 completed, 1 otherwise) or waits with no
 * one to ask (exit 3, saying the commands that continue it).
 */
export async function settleRun(options: SettleOptions): Promise<number> {
  const { printer, io } = options;
  let run = options.run;
  for (;;) {
    if (run.status === 'escalated') {
      // The run asks a person for help: a message carries it on; --yes never answers for a person.
      if (io.stdin === undefined || io.stdin.isTTY !== true) {
        printer.end(run);
        io.stderr.write(escalatedMessage(run.id, options.resume));
        return EXIT.waiting;
      }
      const text = await askLine(
        io,
        '\n? the run asks for your help (see the reflection above). Your message (an empty line cancels the run): ',
      );
      if (text === '' && options.cancel !== undefined) {
        run = await options.cancel('declined at the terminal');
        continue;
      }
      run = await options.decide({ type: 'message', text: text === '' ? 'Go on.' : text, userId: CLI_USER });
      continue;
    }
    if (run.status !== 'waiting_approval' || run.pendingApproval === undefined) break;
    const pending = run.pendingApproval;
    const base = { type: 'approval', toolCallId: pending.toolCallId, userId: CLI_USER } as const;
    // --yes approves calls; it never repeats one that may already have happened.
    if (options.yes === true && pending.reason !== 'outcome_unknown') {
      io.stderr.write(`✓ approved ${pending.name} (--yes)\n`);
      run = await options.decide({ ...base, decision: 'approve' });
      continue;
    }
    if (io.stdin === undefined || io.stdin.isTTY !== true) {
      // What --yes did comes before the summary, like each decision it makes: here, none.
      if (options.yes === true)
        io.stderr.write(`⏸ not approved by --yes: ${pending.name} was sent and may already have happened\n`);
      printer.end(run);
      io.stderr.write(
        waitingMessage({
          pending,
          runId: run.id,
          resume: options.resume,
          ...(options.fromRun === true ? { fromRun: true } : {}),
        }),
      );
      return EXIT.waiting;
    }
    run = await options.decide({ ...base, ...(await askApproval(io, pending)) });
  }
  printer.end(run);
  return run.status === 'completed' ? EXIT.ok : EXIT.failed;
}
