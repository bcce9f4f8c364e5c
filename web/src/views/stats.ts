import type { StatsSnapshot } from '../../../src/core/stats.ts';
import { api } from '../api.ts';
import { append, clear, formatTime, h } from '../dom.ts';
import type { AppContext } from '../main.ts';
import {
  emptyMessage,
  filterOptions,
  formatLatencyMs,
  formatWindow,
  NO_CHOICE,
  rowLines,
  STATS_FILTER_KEYS,
  strategyBars,
  totalsLines,
  type FilterOptions,
  type StatsChoice,
  type StatsFilterKey,
} from '../stats-model.ts';
import { barChart, sparkline, type Chart } from './stats-charts.ts';

const REFRESH_MS = 5000;
const ANY: Record<StatsFilterKey, string> = { tenant: 'any tenant', strategy: 'any strategy', model: 'any model' };
const LABELS: Record<StatsFilterKey, string> = { tenant: 'Tenant', strategy: 'Strategy', model: 'Model' };
const ROW_COLUMNS = ['Tenant', 'Intent', 'Strategy', 'Model', 'Ended', 'Completed', 'Failed', 'Tool p95', 'Cost'];

/**
 * Live outcome statistics (GET /v1/stats) over the server's window: totals, a line per tenant × intent × strategy ×
 * model with sparklines of its buckets, and bars per strategy; filtered by tenant, strategy and model, refreshed every
 * 5 s while shown.
 */
export async function statsView(ctx: AppContext): Promise<HTMLElement> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  // A key bound to a tenant sees that tenant only (the server narrows it): no tenant to choose.
  const keys = STATS_FILTER_KEYS.filter((key) => key !== 'tenant' || ctx.session.tenantId === undefined);
  const selects = keys.map((key) => ({ key, el: h('select', { id: `stats-${key}` }) }));
  const choice: StatsChoice = { ...NO_CHOICE };
  for (const key of keys) choice[key] = params.get(key) ?? '';
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'stats-error' });
  const windowLine = h('p', { class: 'meta', 'data-testid': 'stats-window' });
  const content = h('div', { 'data-testid': 'stats-content' });
  let options: FilterOptions | undefined;
  let charts: Chart[] = [];

  const fillSelects = (): void => {
    for (const { key, el } of selects) {
      clear(el);
      append(
        el,
        h('option', { value: '' }, ANY[key]),
        (options?.[key] ?? []).map((v) => h('option', { value: v }, v)),
      );
      el.value = choice[key];
    }
  };
  const draw = (snapshot: StatsSnapshot): void => {
    for (const chart of charts) chart.destroy();
    charts = [];
    clear(content);
    windowLine.textContent = `Last ${formatWindow(snapshot.windowMs)}, until ${formatTime(snapshot.until)}`;
    const empty = emptyMessage(snapshot);
    if (empty !== undefined) {
      content.append(h('p', { class: 'muted', 'data-testid': 'stats-empty' }, empty));
      return;
    }
    content.append(totalsList(snapshot), barsSection(snapshot), rowsTable(snapshot));
  };
  const totalsList = (snapshot: StatsSnapshot): HTMLElement =>
    h(
      'dl',
      { class: 'stats-totals', 'data-testid': 'stats-totals' },
      totalsLines(snapshot.totals).map((line) =>
        h(
          'div',
          {},
          h('dt', {}, line.label),
          h(
            'dd',
            {
              'data-testid': `stat-${line.name}`,
              ...(line.value === undefined ? {} : { 'data-value': String(line.value) }),
            },
            line.text,
          ),
        ),
      ),
    );
  const barsSection = (snapshot: StatsSnapshot): HTMLElement => {
    const bars = strategyBars(snapshot);
    const completion = barChart({
      title: 'Completion rate per strategy',
      labels: bars.strategies,
      values: bars.completionPercent,
      color: '--ok',
      format: (v) => `${Math.round(v)}%`,
      max: 100,
    });
    const latency = barChart({
      title: 'Tool p95 per strategy',
      labels: bars.strategies,
      values: bars.toolP95Ms,
      color: '--bar-tool',
      format: (v) => formatLatencyMs(v),
    });
    charts.push(completion, latency);
    return h('div', { class: 'stats-bars', 'data-testid': 'stats-bars' }, completion.element, latency.element);
  };
  const rowsTable = (snapshot: StatsSnapshot): HTMLElement => {
    const body = h('tbody', {});
    for (const line of rowLines(snapshot)) {
      const outcomes = sparkline({
        data: line.outcomes,
        colors: ['--ok', '--danger'],
        label: `runs completed and failed per ${formatWindow(snapshot.bucketMs)}`,
      });
      const tool = sparkline({ data: line.toolP95, colors: ['--bar-tool'], label: 'tool p95 per bucket' });
      charts.push(outcomes, tool);
      const { row, cells } = line;
      body.append(
        h(
          'tr',
          { 'data-testid': 'stats-row', 'data-key': line.key },
          [row.tenant, row.intent, row.strategy, row.model].map((v) => h('td', {}, v)),
          h('td', { 'data-cell': 'ended' }, cells.ended),
          h('td', { 'data-cell': 'completion-rate' }, cells.completionRate),
          h('td', { 'data-cell': 'failed' }, cells.failed),
          h('td', { 'data-cell': 'tool-p95' }, cells.toolP95),
          h('td', { 'data-cell': 'cost' }, cells.costUsd),
          h('td', { class: 'chart-cell' }, outcomes.element),
          h('td', { class: 'chart-cell' }, tool.element),
        ),
      );
    }
    return h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'stats-rows' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [...ROW_COLUMNS, 'Completed / failed', 'Tool p95 over time'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        body,
      ),
    );
  };
  const fetchSnapshot = async (): Promise<StatsSnapshot> => {
    const snapshot = await api.stats(choice);
    options = filterOptions(snapshot, { ...(options === undefined ? {} : { previous: options }), choice });
    return snapshot;
  };
  const load = async (): Promise<void> => {
    try {
      const snapshot = await fetchSnapshot();
      error.textContent = '';
      fillSelects();
      draw(snapshot);
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : String(e);
    }
  };
  const changed = (): void => {
    const q = new URLSearchParams();
    for (const { key, el } of selects) {
      choice[key] = el.value;
      if (el.value !== '') q.set(key, el.value);
    }
    history.replaceState(null, '', `#/stats${q.size > 0 ? `?${q.toString()}` : ''}`);
    void load();
  };
  for (const { el } of selects) el.addEventListener('change', changed);

  // Registered before the first answer: leaving while it is on its way starts no timer.
  let timer: ReturnType<typeof setInterval> | undefined;
  let left = false;
  ctx.onLeave(() => {
    left = true;
    clearInterval(timer);
    for (const chart of charts) chart.destroy();
    charts = [];
  });
  // The first answer is awaited, so a refusal (401, 403) reaches the shell like any view's.
  const first = await fetchSnapshot();
  fillSelects();
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'stats-title' },
    h(
      'div',
      { class: 'run-head' },
      h('h1', { id: 'stats-title' }, 'Stats'),
      h('span', { class: 'spacer' }),
      windowLine,
    ),
    h(
      'div',
      { class: 'filters', role: 'search' },
      selects.flatMap(({ key, el }) => [h('label', { for: el.id, class: 'sr-only' }, LABELS[key]), el]),
    ),
    error,
    content,
  );
  if (!left) {
    draw(first);
    timer = setInterval(() => void load(), REFRESH_MS);
  }
  return section;
}
