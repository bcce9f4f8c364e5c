import { RUN_STATUSES, type RunStatus } from '../core/index.ts';
import { EXIT, optionalString, usageError, type CliIO } from './cli-io.ts';
import { createEventPrinter } from './event-printer.ts';
import type { RunsBackend } from './runs-backend.ts';
import { formatRun, formatRunList } from './runs-format.ts';
import { decideCommands } from './runs-hints.ts';
import { isOneOf } from '../core/is-one-of.ts';

export const DEFAULT_LIST_LIMIT = 20;
/** The runs API's largest page (GET /v1/runs?limit=). */
export const MAX_LIST_LIMIT = 200;

/** What every `toolgate runs` command gets. */
export interface RunsContext {
  backend: RunsBackend;
  values: Record<string, unknown>;
  /** The run the command is about ('' for `list`). */
  runId: string;
  io: CliIO;
  json: boolean;
  /** The flags that reach the same place again (`''` for the defaults), for the commands we suggest. */
  resume: string;
  /** `runs message`: the message. */
  text?: string;
}

export async function listRuns(ctx: RunsContext): Promise<number> {
  const statuses = parseStatuses(ctx.values['status']);
  const limit = parseLimit(optionalString(ctx.values, 'limit'));
  const runs = await ctx.backend.list({ statuses, limit });
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(runs)}\n`);
  else if (runs.length === 0)
    ctx.io.stderr.write(
      `no runs${statuses.length === 0 ? '' : ` with status ${statuses.join(' or ')}`} in ${ctx.backend.label}\n`,
    );
  else ctx.io.stdout.write(formatRunList(runs));
  return EXIT.ok;
}

export async function showRun(ctx: RunsContext): Promise<number> {
  const run = await ctx.backend.get(ctx.runId);
  ctx.io.stdout.write(ctx.json ? `${JSON.stringify(run)}\n` : formatRun({ run, resume: ctx.resume }));
  return EXIT.ok;
}

/** The stored events, or with --follow the live ones too; the exit code then is the run's. */
export async function printEvents(ctx: RunsContext): Promise<number> {
  const after = parseAfter(optionalString(ctx.values, 'after'));
  const printer = createEventPrinter({ io: ctx.io, json: ctx.json });
  if (ctx.values['follow'] !== true) {
    for (const event of await ctx.backend.events(ctx.runId, after)) printer.print(event);
    return EXIT.ok;
  }
  const signal = ctx.io.signal;
  const run = await ctx.backend.follow(ctx.runId, {
    after,
    onEvent: printer.print,
    ...(signal === undefined ? {} : { signal }),
  });
  printer.end(run);
  if (run.status === 'waiting_approval') {
    if (run.pendingApproval !== undefined) {
      ctx.io.stderr.write(
        [
          `run ${run.id} waits for a decision on ${run.pendingApproval.name}:`,
          ...decideCommands({ runId: run.id, pending: run.pendingApproval, resume: ctx.resume }),
        ].join('\n') + '\n',
      );
    }
    return EXIT.waiting;
  }
  return run.status === 'completed' ? EXIT.ok : EXIT.failed;
}

export async function cancelRun(ctx: RunsContext): Promise<number> {
  const run = await ctx.backend.cancel(ctx.runId, optionalString(ctx.values, 'reason'));
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(run)}\n`);
  else if (run.status === 'cancelled') ctx.io.stderr.write(`✗ run ${run.id} cancelled\n`);
  else
    ctx.io.stderr.write(
      `cancel requested; run ${run.id} is still ${run.status} (the process that drives it ends it at its next step)\n`,
    );
  return run.status === 'cancelled' ? EXIT.ok : EXIT.failed;
}

export function parseStatuses(raw: unknown): RunStatus[] {
  const values: unknown[] = Array.isArray(raw) ? raw : [];
  return values.map((value) => {
    if (!isOneOf(RUN_STATUSES, value))
      throw usageError(`--status ${String(value)}: use one of ${RUN_STATUSES.join(', ')}`);
    return value;
  });
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIST_LIMIT;
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_LIST_LIMIT))
    throw usageError(`--limit must be an integer from 1 to ${MAX_LIST_LIMIT}, got "${raw}"`);
  return n;
}

export function parseAfter(raw: string | undefined): number {
  if (raw === undefined) return 0;
  if (!/^\d{1,15}$/.test(raw)) throw usageError(`--after must be an event number (0 or more), got "${raw}"`);
  return Number(raw);
}
