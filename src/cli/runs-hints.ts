import type { PendingApproval } from '../core/index.ts';

export interface WaitingMessageOptions {
  pending: PendingApproval;
  runId: string;
  /**
   * The flags that reach the run again (`''` for the defaults, e.g.
   * ` --store sqlite:/…/runs.db`), or undefined when it was not recorded
   * (`--store memory:`) and cannot be continued later.
   */
  resume: string | undefined;
  /** `toolgate run` adds the ways to avoid the wait next time. */
  fromRun?: boolean;
}

/**
 * What to say when a run stops because it waits for a person and there is no
 * terminal to ask on: the exact commands that continue it.
 */
export function waitingMessage(options: WaitingMessageOptions): string {
  const { pending, runId, resume } = options;
  const lines: string[] = [];
  if (pending.reason === 'outcome_unknown') {
    lines.push(
      `toolgate: ${pending.name} was sent but its outcome is unknown ` +
        `(${pending.detail ?? 'toolgate stopped while it was in flight'}); it may have happened.`,
    );
    if (resume === undefined) {
      lines.push(
        `  The run was not recorded (--store memory:), so it cannot be decided ` +
          `later. Check whether ${pending.name} happened before running it again.`,
      );
      return `${lines.join('\n')}\n`;
    }
    lines.push('  Check whether it happened, then decide:', ...decideCommands({ runId, pending, resume }));
    return `${lines.join('\n')}\n`;
  }
  lines.push(`toolgate: ${waitingWhat(pending)} and there is no terminal to ask on.`);
  if (resume === undefined) {
    lines.push('  The run was not recorded (--store memory:), so it cannot be decided later.');
  } else {
    lines.push('  The run is recorded; decide later with:', ...decideCommands({ runId, pending, resume }));
  }
  if (options.fromRun === true) lines.push(...nextTime(pending));
  return `${lines.join('\n')}\n`;
}

function waitingWhat(pending: PendingApproval): string {
  if (pending.kind === 'plan') return 'the plan needs approval (one decision for all its steps)';
  if (pending.reason === 'untrusted_output')
    return `${pending.name} (${pending.effect}) needs approval: it follows untrusted output (${sources(pending)})`;
  return `${pending.name} (${pending.effect}) needs approval`;
}

/**
 * How to avoid the wait next time. `approval: never` is offered only for a
 * call the policy holds: a plan is no tool (its approval stands for the writes
 * in it), and a write after untrusted output waits whatever its rule says.
 */
function nextTime(pending: PendingApproval): string[] {
  if (pending.kind === 'plan') {
    return [
      '  Or next time: approve the plan with --yes, run in a terminal to decide it, or preview it with --dry-run.',
    ];
  }
  const head =
    '  Or next time: approve every call with --yes, run in a terminal to decide each call, preview with --dry-run,';
  if (pending.reason === 'untrusted_output') {
    const names = untrustedNames(pending);
    const which = names.length === 1 ? `${names[0]} returns` : 'those tools return';
    return [
      head,
      `  or, if ${which} only content you trust, mark ${names.length === 1 ? 'it' : 'them'} trusted in toolgate.yaml`,
      `  (tools: {"<server>/${names[0] ?? '<tool>'}": {untrusted: ` +
        `false}}). approval: never does not lift this approval.`,
    ];
  }
  return [
    head,
    `  or set approval: never for this tool in toolgate.yaml (tools: {"<server>/${pending.name}": {approval: never}}).`,
  ];
}

/** The tools whose untrusted output preceded the call, each once. */
function untrustedNames(pending: PendingApproval): string[] {
  return [...new Set((pending.provenance ?? []).map((p) => p.name))];
}

function sources(pending: PendingApproval): string {
  const names = untrustedNames(pending);
  return names.length === 0 ? 'an earlier tool' : names.join(', ');
}

/** What to do about a run that waits for a person's help (escalated) with no terminal to ask on. */
export function escalatedMessage(runId: string, resume: string | undefined): string {
  const lines = [
    "toolgate: the run asks for a person's help (escalated; the " +
      'reflection above says why) and there is no terminal to ask on.',
  ];
  if (resume === undefined) {
    lines.push('  The run was not recorded (--store memory:), so it cannot be continued later.');
  } else {
    lines.push(
      '  The run is recorded; answer it, or cancel it, with:',
      `    toolgate runs message ${runId} "<your answer>"${resume}`,
      `    toolgate runs cancel ${runId}${resume}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The commands that decide on a waiting run, one per line, indented for a message. */
export function decideCommands(options: {
  runId: string;
  pending: Pick<PendingApproval, 'reason'>;
  resume: string;
}): string[] {
  const { runId, resume } = options;
  const command = (verb: string, rest = ''): string => `    toolgate runs ${verb} ${runId}${rest}${resume}`;
  if (options.pending.reason === 'outcome_unknown') {
    return [
      `${command('mark-done', ' --result "what you saw"')}   # it happened: recorded as done, never sent again`,
      `${command('approve')}   # it did not happen: send it again`,
      `${command('reject', ' --reason "…"')}   # neither; the model is told why`,
    ];
  }
  return [command('approve'), command('reject', ' --reason "…"')];
}
