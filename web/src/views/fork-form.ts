// "Fork here" on a row of a run's event log: a small inline form (strategy, max
// steps; empty keeps the original's) that forks the run after that event and opens
// the fork.
import type { ForkSettings } from '../../../src/core/index.ts';
import { api, ApiError } from '../api.ts';
import { h } from '../dom.ts';

const STRATEGIES = ['react', 'plan', 'reflect', 'auto'];

/** Puts a "fork here" button in the row's summary; the form opens inside the row. */
export function addForkControl(
  row: HTMLElement,
  fork: { runId: string; eventId: number; opened: (runId: string) => void },
): void {
  const summary = row.querySelector('summary');
  if (summary === null) return;
  const open = h(
    'button',
    {
      type: 'button',
      class: 'ghost small fork-here',
      'data-testid': 'fork-here',
      'aria-label': `Fork the run after event ${fork.eventId}`,
    },
    'fork here',
  );
  let form: HTMLElement | undefined;
  open.addEventListener('click', (event) => {
    // A click in a summary would toggle the row; the form is opened instead.
    event.preventDefault();
    if (row instanceof HTMLDetailsElement) row.open = true;
    form ??= forkForm(fork, () => {
      form?.remove();
      form = undefined;
    });
    if (form.parentElement === null) summary.after(form);
    form.querySelector('select')?.focus();
  });
  summary.append(' ', open);
}

function forkForm(
  fork: { runId: string; eventId: number; opened: (runId: string) => void },
  close: () => void,
): HTMLElement {
  const strategy = h(
    'select',
    { 'aria-label': 'Fork strategy' },
    h('option', { value: '' }, '(same strategy)'),
    STRATEGIES.map((s) => h('option', { value: s }, s)),
  );
  const maxSteps = h('input', {
    type: 'number',
    min: 1,
    max: 1000,
    step: 1,
    placeholder: '(same)',
    'aria-label': 'Fork max steps',
  });
  const error = h('div', { class: 'error', role: 'alert', 'data-testid': 'fork-error' });
  const submit = h('button', { type: 'submit' }, 'Fork run');
  const cancel = h('button', { type: 'button', class: 'ghost', onclick: close }, 'Cancel');
  const form = h(
    'form',
    {
      class: 'fork-form inline',
      'data-testid': 'fork-form',
      'aria-label': `Fork after event ${fork.eventId}`,
      // Checked here, with a message in words, rather than by the browser's own bubble.
      novalidate: true,
    },
    h('span', { class: 'muted' }, `Fork after event ${fork.eventId}:`),
    strategy,
    maxSteps,
    submit,
    cancel,
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const settings: ForkSettings = {};
    if (strategy.value !== '') settings.strategy = strategy.value;
    if (maxSteps.value.trim() !== '') {
      const steps = Number(maxSteps.value);
      if (!Number.isInteger(steps) || steps < 1 || steps > 1000) {
        error.textContent = 'Max steps must be a whole number from 1 to 1000 (or empty: the original’s).';
        return;
      }
      settings.maxSteps = steps;
    }
    error.textContent = '';
    submit.disabled = true;
    void api.fork(fork.runId, fork.eventId, settings).then(
      (run) => fork.opened(run.id),
      (e: unknown) => {
        submit.disabled = false;
        error.textContent = e instanceof ApiError ? `${e.code}: ${e.message}` : String(e);
      },
    );
  });
  return form;
}
