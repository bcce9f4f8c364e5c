import type { ReplayCallChange, ReplayDiff, Run } from '../core/index.ts';

/** Answers are cut after this many characters in the text output (--json has them whole). */
const MAX_ANSWER_CHARS = 160;

/**
 * One run's decision diff for people: a header with the run id, then "no change", or each call's changes, the calls
 * that would have run, the answer and the status; the replay's own end when it stopped early.
 */
export function formatReplayDiff(diff: ReplayDiff, replay: Run): string {
  const model = diff.model === 'live' ? ` (the model was asked from step ${diff.divergedAtStep ?? '?'})` : '';
  const lines = [`run ${diff.of}: ${diff.changed ? 'changed' : 'no change'}${model}`];
  for (const call of diff.calls) lines.push(...callLines(call));
  for (const call of diff.calls) {
    const after = call.after;
    if (after?.outcome === 'would_run')
      lines.push(`  would run: ${after.name} ${JSON.stringify(after.arguments ?? {})}`);
  }
  if (diff.answer.changed) lines.push(`  answer changed: ${quoted(diff.answer.before)} → ${quoted(diff.answer.after)}`);
  if (diff.status.before !== diff.status.after) {
    const why = replay.error === undefined ? '' : ` (${replay.error.message})`;
    lines.push(`  status: ${diff.status.before} → ${diff.status.after}${why}`);
  }
  if (diff.model === 'recorded' && diff.divergedAtStep !== undefined)
    lines.push(
      `  from step ${diff.divergedAtStep} on the replay is not the original's conversation: ` +
        'later recorded turns answered a different one (--live-model asks the model instead)',
    );
  return `${lines.join('\n')}\n`;
}

function callLines(call: ReplayCallChange): string[] {
  if (call.kind === 'same') return [];
  if (call.kind !== 'changed') return call.changes.map((change) => `  ${change}`);
  const subject = call.after ?? call.before;
  const where = subject === undefined ? '' : `${subject.name} (step ${subject.step}): `;
  return call.changes.map((change) => `  ${where}${change}`);
}

function quoted(text: string | undefined): string {
  if (text === undefined) return '(none)';
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > MAX_ANSWER_CHARS ? `${flat.slice(0, MAX_ANSWER_CHARS - 1)}…` : flat);
}
