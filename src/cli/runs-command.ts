import { ToolgateError, didYouMean } from '../core/index.ts';
import { renderCommandHelp, type CommandSpec } from './command-spec.ts';
import { EXIT, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { cancelRun, listRuns, printEvents, showRun, type RunsContext } from './runs-actions.ts';
import type { RunsBackend } from './runs-backend.ts';
import { decideRun } from './runs-decide.ts';
import { messageRun } from './runs-message.ts';
import { LocalRuns } from './runs-local.ts';
import { RemoteRuns } from './runs-remote.ts';
import { resumeFlags, whereFor } from './runs-where.ts';
import { RUNS_SPEC } from './specs/runs-spec.ts';

/** Exit code after Ctrl-C stopped a command (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

/**
 * Errors that mean "nothing was done, and the command line says why": exit 2,
 * like usage errors, so a script can tell them from a run that failed (1).
 */
const NOTHING_DONE: ReadonlySet<string> = new Set(['not_found', 'unauthorized', 'conflict']);

const ACTIONS: Readonly<Record<string, (ctx: RunsContext) => Promise<number>>> = {
  list: listRuns,
  show: showRun,
  events: printEvents,
  approve: (ctx) => decideRun(ctx, 'approve'),
  reject: (ctx) => decideRun(ctx, 'reject'),
  'mark-done': (ctx) => decideRun(ctx, 'mark-done'),
  cancel: cancelRun,
  message: (ctx) => messageRun(ctx, ctx.text ?? ''),
};

/** `toolgate runs <command> …`: the same commands on a local store or on a server. */
export async function runsCommand(args: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stdout.write(renderCommandHelp(RUNS_SPEC));
    return EXIT.usage;
  }
  const spec = subcommandSpec(name);
  // Several run ids, and a file to write: not one of the one-run actions below.
  if (name === 'export') return (await import('./runs-export.ts')).exportRuns(rest, io, spec);
  // Works on a store as a whole, never through a server.
  if (name === 'prune') return (await import('./runs-prune.ts')).pruneCommand(rest, io, spec);
  const action = ACTIONS[name];
  if (action === undefined)
    throw new ToolgateError('internal', `toolgate runs ${name} has a spec but no implementation`);
  const { values, positionals } = parseFlags(rest, spec);
  // `runs message <run-id> <text…>`: the words after the run id are the message.
  const runId = runIdOf(name, name === 'message' ? positionals.slice(0, 1) : positionals);
  const text = name === 'message' ? positionals.slice(1).join(' ') : undefined;
  const where = whereFor({ values, env: io.env, cwd: io.cwd });
  const resume = resumeFlags(where);
  if (resume === undefined)
    throw usageError(
      '--store memory: keeps nothing, so there are no runs to look at; use --store sqlite:<file> or the default store',
    );
  const backend: RunsBackend =
    where.kind === 'local' ? await LocalRuns.open({ where, io, values }) : new RemoteRuns(where);
  try {
    return await action({
      backend,
      values,
      runId,
      io,
      json: values['json'] === true,
      resume,
      ...(text === undefined ? {} : { text }),
    });
  } catch (error) {
    if (io.signal?.aborted === true) return EXIT_INTERRUPTED;
    if (error instanceof ToolgateError && NOTHING_DONE.has(error.code)) {
      io.stderr.write(`toolgate: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  } finally {
    await backend.close();
  }
}

function subcommandSpec(name: string): CommandSpec {
  const spec = RUNS_SPEC.subcommands.find((s) => s.name === `runs ${name}`);
  if (spec !== undefined) return spec;
  const names = RUNS_SPEC.subcommands.map((s) => s.name.slice('runs '.length));
  throw usageError(`toolgate runs has no command "${name}"${didYouMean(name, names)} (commands: ${names.join(', ')})`);
}

function runIdOf(name: string, positionals: readonly string[]): string {
  if (name === 'list') {
    if (positionals.length > 0)
      throw usageError(
        `toolgate runs list takes no run id (got "${positionals[0] ?? ''}"); toolgate runs show <run-id> shows one run`,
      );
    return '';
  }
  const [runId, extra] = positionals;
  if (runId === undefined || runId.trim() === '')
    throw usageError(
      `toolgate runs ${name} needs a run id, e.g. toolgate runs ${name} run_01J… (toolgate runs list shows them)`,
    );
  if (extra !== undefined) throw usageError(`toolgate runs ${name} takes one run id; got "${runId}" and "${extra}"`);
  return runId;
}
