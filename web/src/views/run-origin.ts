// Where a run comes from: "forked from <run> after event N", and a stored replay's
// decision diff beside a link to the run it replays.
import { h } from '../dom.ts';
import type { ForkOrigin, ReplayRow, ReplaySide, ReplayView } from '../replay-model.ts';

function runLink(runId: string, testId: string): HTMLElement {
  return h('a', { href: `#/runs/${encodeURIComponent(runId)}`, 'data-testid': testId }, h('code', {}, runId));
}

/** What is shown of where a run comes from: a fork's origin, a replay's diff (or, before it is there, its original). */
export function originView(origin: {
  forkOf: ForkOrigin | undefined;
  replayOf: string | undefined;
  replay: ReplayView | undefined;
}): HTMLElement[] {
  const shown: HTMLElement[] = [];
  if (origin.forkOf !== undefined) shown.push(forkBanner(origin.forkOf));
  if (origin.replay !== undefined) shown.push(replayPanel(origin.replay));
  else if (origin.replayOf !== undefined)
    shown.push(
      h('p', { class: 'origin', 'data-testid': 'replay-of' }, 'Replay of ', runLink(origin.replayOf, 'replay-of-link')),
    );
  return shown;
}

export function forkBanner(fork: ForkOrigin): HTMLElement {
  const changed = Object.entries(fork.settings ?? {}).map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  return h(
    'p',
    { class: 'origin', 'data-testid': 'forked-from' },
    'Forked from ',
    runLink(fork.runId, 'forked-from-link'),
    ` after event ${fork.afterEventId}`,
    changed.length === 0 ? '' : ` · changed: ${changed.join(', ')}`,
  );
}

const KIND_TEXT: Record<ReplayRow['kind'], string> = {
  same: 'same',
  changed: 'changed',
  added: 'only in the replay',
  missing: 'only in the original',
};

function sideCell(side: ReplaySide | undefined, which: 'before' | 'after'): HTMLElement {
  if (side === undefined) return h('td', { class: 'muted', 'data-side': which }, '—');
  return h(
    'td',
    { 'data-side': which },
    h('strong', {}, side.tool),
    h('span', { class: 'badge' }, side.decision),
    h('span', { class: `badge outcome` }, side.outcome),
    side.rule === undefined ? null : h('div', { class: 'why' }, `rule ${side.rule}`),
    side.reason === undefined ? null : h('div', { class: 'why' }, side.reason),
    side.arguments === undefined ? null : h('pre', { class: 'mono' }, JSON.stringify(side.arguments)),
  );
}

/** "Replay of <run>": the diff's calls side by side, what changed, and the answer before and after. */
export function replayPanel(replay: ReplayView): HTMLElement {
  const rows = replay.rows.map((row) =>
    h(
      'tr',
      { class: `replay-${row.kind}`, 'data-testid': 'replay-row', 'data-kind': row.kind },
      h('td', {}, KIND_TEXT[row.kind]),
      sideCell(row.before, 'before'),
      sideCell(row.after, 'after'),
      h(
        'td',
        {},
        row.changes.length === 0
          ? ''
          : h(
              'ul',
              { class: 'changes' },
              row.changes.map((c) => h('li', {}, c)),
            ),
      ),
    ),
  );
  const diverged = replay.divergedAtStep === undefined ? '' : `, diverged at step ${replay.divergedAtStep}`;
  const model =
    replay.model === 'live'
      ? `the configured model answered from step ${replay.divergedAtStep ?? '?'}`
      : `recorded model turns${diverged}`;
  return h(
    'section',
    { class: 'card replay', 'data-testid': 'replay', 'aria-label': 'replay' },
    h('h2', {}, 'Replay of ', runLink(replay.of, 'replay-of-link')),
    h(
      'p',
      { class: 'meta' },
      replay.changed ? 'Something differs' : 'Nothing differs',
      ` · status ${replay.status.before} → ${replay.status.after} · ${model}`,
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, ''), h('th', {}, 'Before'), h('th', {}, 'After'), h('th', {}, 'Changes')),
        ),
        h(
          'tbody',
          {},
          rows.length === 0 ? h('tr', {}, h('td', { colspan: 4 }, 'No tool calls on either side.')) : rows,
        ),
      ),
    ),
    h(
      'div',
      { class: 'grid-2 replay-answers' },
      h(
        'div',
        { 'data-testid': 'replay-answer-before' },
        h('h3', {}, 'Answer before'),
        h('div', { class: 'answer-text' }, replay.answer.before ?? '(none)'),
      ),
      h(
        'div',
        { 'data-testid': 'replay-answer-after' },
        h('h3', {}, replay.answer.changed ? 'Answer after (changed)' : 'Answer after'),
        h('div', { class: 'answer-text' }, replay.answer.after ?? '(none)'),
      ),
    ),
  );
}
