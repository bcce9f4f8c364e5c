import type { ExpectationResult } from './check-expectation.ts';

/** What `toolgate policy test` found: the runs replayed and each expectation's result (the `--json` output). */
export interface PolicyTestReport {
  /** The suite file, as given. */
  suite: string;
  runs: ReplayedRunSummary[];
  results: ExpectationResult[];
  passed: number;
  failed: number;
}

export interface ReplayedRunSummary {
  id: string;
  tenant?: string;
  /** Whether anything differs from the original (ReplayDiff.changed). */
  changed: boolean;
  /**
   * From this step on the conversation is not the recorded one (a result or a decision changed): the recorded answers
   * that follow are what the model said to something else.
   */
  divergedAtStep?: number;
}

const MAX_ARGUMENTS = 120;

/**
 * The report for people: a line per expectation (✓ or ✗, how many calls it applied to), under a failed one a
 * line per failing run and call, then `policy test: N passed, M failed` last, for CI logs.
 */
export function renderPolicyTestReport(report: PolicyTestReport, options: { color: boolean }): string {
  const paint = (open: number, close: number) => (s: string) =>
    options.color ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  const red = paint(31, 39);
  const green = paint(32, 39);
  const dim = paint(2, 22);
  const changed = report.runs.filter((r) => r.changed).length;
  const lines = [
    `${report.suite}: ${report.runs.length} run${report.runs.length === 1 ? '' : 's'} replayed, ${changed} changed`,
  ];
  for (const run of report.runs) {
    if (run.divergedAtStep !== undefined)
      lines.push(
        dim(
          `  ${run.id}: from step ${run.divergedAtStep} on, the replay sent what the model never saw (a result or ` +
            'a decision changed): its recorded answers from there may not be what it would have said',
        ),
      );
  }
  for (const result of report.results) {
    const applied =
      result.checked === 0
        ? 'no call matched: it checks nothing'
        : `${result.checked} ${result.kind === 'answerUnchanged' ? 'run' : 'call'}${result.checked === 1 ? '' : 's'}`;
    lines.push(`${result.passed ? green('✓') : red('✗')} ${result.name} ${dim(`(${applied})`)}`);
    for (const failure of result.failures) {
      const call = failure.call;
      const shown = call?.arguments === undefined ? '' : ` ${args(call.arguments)}`;
      const where = call === undefined ? failure.runId : `${failure.runId} step ${call.step} ${call.name}${shown}`;
      lines.push(`    ${where}: ${failure.reason}`);
    }
  }
  lines.push(`policy test: ${report.passed} passed, ${report.failed} failed`);
  return `${lines.join('\n')}\n`;
}

function args(value: object): string {
  const text = JSON.stringify(value);
  return text.length > MAX_ARGUMENTS ? `${text.slice(0, MAX_ARGUMENTS - 1)}…` : text;
}
