import { isJsonObject, type PendingApproval, type Run } from '../core/index.ts';
import { approvalWhy } from './approval-why.ts';
import { formatTokens } from './format-usage.ts';
import type { RunRow } from './runs-backend.ts';
import { decideCommands } from './runs-hints.ts';

const MAX_INPUT_CHARS = 60;
const MAX_ARGUMENTS_CHARS = 2000;

/** `toolgate runs list`: one line per run (summaries as GET /v1/runs gives them), newest first. */
export function formatRunList(runs: readonly RunRow[]): string {
  const rows = runs.map((run) => {
    const pending = run['pendingApproval'];
    const waitsOn = isJsonObject(pending) && typeof pending['name'] === 'string' ? ` (${pending['name']})` : '';
    return [
      text(run['id']),
      `${text(run['status'])}${waitsOn}`,
      shortTime(text(run['createdAt'])),
      text(run['steps']),
      text(run['model']),
      oneLine(text(run['input']), MAX_INPUT_CHARS),
    ];
  });
  const header = ['ID', 'STATUS', 'CREATED (UTC)', 'STEPS', 'MODEL', 'INPUT'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

export interface FormatRunOptions {
  run: Run;
  /** Flags that reach the run again (`''` for the defaults), for the commands a waiting run suggests. */
  resume: string;
}

/** `toolgate runs show`: what a person needs to understand a run and decide on it. */
export function formatRun(options: FormatRunOptions): string {
  const { run } = options;
  const rows: [string, string][] = [
    ['status', run.status],
    ['model', run.model],
    ['created', `${run.createdAt} (updated ${run.updatedAt})`],
    ['steps', `${run.steps} · ${formatTokens(run.usage)}`],
  ];
  if (run.userId !== undefined) rows.push(['user', run.userId]);
  if (run.tenantId !== undefined) rows.push(['tenant', run.tenantId]);
  if (run.threadId !== undefined) rows.push(['thread', run.threadId]);
  if (run.dryRun === true) rows.push(['dry run', 'yes: writes were previewed, not executed']);
  rows.push(['input', run.input]);
  if (run.output !== undefined) rows.push(['answer', run.output]);
  if (run.error !== undefined) rows.push(['error', `${run.error.code}: ${run.error.message}`]);
  const out = [`run ${run.id}`, ...rows.map(([k, v]) => `  ${k.padEnd(8)} ${indent(v)}`)];
  if (run.status === 'waiting_approval' && run.pendingApproval !== undefined)
    out.push(...pendingLines(run.id, run.pendingApproval, options.resume));
  if (run.status === 'escalated') {
    out.push(
      '',
      "waits for a person's help (escalated; `toolgate runs events` shows the reflection that asked)",
      '  answer',
      `    toolgate runs message ${run.id} "<your answer>"${options.resume}`,
      `    toolgate runs cancel ${run.id}${options.resume}`,
    );
  }
  return `${out.join('\n')}\n`;
}

function pendingLines(runId: string, pending: PendingApproval, resume: string): string[] {
  return [
    '',
    pending.kind === 'plan'
      ? 'waits for approval: a whole plan (one decision for all its steps)'
      : `waits for approval: ${pending.name} (${pending.effect})`,
    `  why      ${approvalWhy(pending)}${pending.reason === 'outcome_unknown' ? ': it may have happened' : ''}`,
    `  call     ${pending.toolCallId}`,
    `  args     ${oneLine(JSON.stringify(pending.arguments), MAX_ARGUMENTS_CHARS)}`,
    '  decide',
    ...decideCommands({ runId, pending, resume }),
  ];
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `2026-05-01T10:00:00.123Z` → `2026-05-01 10:00:00`. */
function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

function oneLine(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Continuation lines of a multi-line value line up under its first line. */
function indent(value: string): string {
  return value.replace(/\n/g, `\n${' '.repeat(11)}`);
}
