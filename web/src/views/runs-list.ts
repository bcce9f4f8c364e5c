import type { RunStatus, RunStrategyLabel } from '../../../src/core/index.ts';
import { api, type RunsFilter, type RunSummary } from '../api.ts';
import { clear, formatTime, h } from '../dom.ts';
import type { AppContext } from '../main.ts';
import { statusPill } from './run-parts.ts';

const STATUSES: readonly RunStatus[] = [
  'queued',
  'running',
  'planning',
  'executing',
  'monitoring',
  'reflecting',
  'waiting_approval',
  'escalated',
  'completed',
  'failed',
  'cancelled',
];
// `gateway`: the runs API's label for a gateway session's run (RUN_STRATEGY_LABELS).
const STRATEGIES: readonly RunStrategyLabel[] = ['react', 'plan', 'reflect', 'auto', 'gateway'];
const REFRESH_MS = 5000;

/** Runs, newest first, filtered by status, strategy, tenant and a search over input and id. */
export async function runsListView(ctx: AppContext): Promise<HTMLElement> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const status = h(
    'select',
    { id: 'filter-status' },
    h('option', { value: '' }, 'any status'),
    STATUSES.map((s) => h('option', { value: s }, s.replace(/_/g, ' '))),
  );
  const strategy = h(
    'select',
    { id: 'filter-strategy' },
    h('option', { value: '' }, 'any strategy'),
    STRATEGIES.map((s) => h('option', { value: s }, s)),
  );
  const tenant = h('input', { id: 'filter-tenant', type: 'text', placeholder: 'tenant', spellcheck: 'false' });
  const search = h('input', { id: 'filter-q', type: 'search', placeholder: 'Search input or id' });
  status.value = params.get('status') ?? '';
  strategy.value = params.get('strategy') ?? '';
  tenant.value = params.get('tenant') ?? '';
  search.value = params.get('q') ?? '';
  const body = h('tbody', {});
  const more = h('button', { type: 'button', class: 'ghost', hidden: true }, 'Load more');
  const error = h('p', { class: 'error', role: 'alert' });
  let cursor: string | undefined;
  let runs: RunSummary[] = [];

  const query = (): RunsFilter => {
    const q: RunsFilter = {};
    // The lists' own values: the select offers nothing else.
    const chosenStatus = STATUSES.find((s) => s === status.value);
    const chosenStrategy = STRATEGIES.find((s) => s === strategy.value);
    if (chosenStatus !== undefined) q.status = chosenStatus;
    if (chosenStrategy !== undefined) q.strategy = chosenStrategy;
    if (search.value.trim() !== '') q.q = search.value.trim();
    return q;
  };
  const draw = (): void => {
    clear(body);
    // Tenant isolation is the server's: a tenant's session only ever gets its own runs. Without keys, this narrows the
    // list.
    const shown = runs.filter((r) => tenant.value.trim() === '' || (r.tenantId ?? '') === tenant.value.trim());
    if (shown.length === 0) body.append(h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No runs match.')));
    for (const run of shown) {
      body.append(
        h(
          'tr',
          { 'data-testid': 'run-row', 'data-run-id': run.id },
          h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, run.id)),
          h(
            'td',
            {},
            statusPill(run.status ?? ''),
            run.pendingApproval === undefined
              ? null
              : h('span', { class: 'badge warn' }, `waits: ${run.pendingApproval.name}`),
          ),
          h('td', {}, run.strategy ?? ''),
          h('td', {}, run.tenantId ?? '—'),
          h('td', { class: 'truncate' }, run.input ?? ''),
          h('td', {}, formatTime(run.createdAt)),
        ),
      );
    }
  };
  const load = async (append: boolean): Promise<void> => {
    try {
      const page = await api.listRuns({ ...query(), ...(append && cursor !== undefined ? { cursor } : {}) });
      runs = append ? [...runs, ...page.runs] : page.runs;
      cursor = page.nextCursor;
      more.hidden = cursor === undefined;
      error.textContent = '';
      draw();
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : String(e);
    }
  };
  const changed = (): void => {
    const q = new URLSearchParams();
    for (const [k, el] of [
      ['status', status],
      ['strategy', strategy],
      ['tenant', tenant],
      ['q', search],
    ] as const)
      if (el.value.trim() !== '') q.set(k, el.value.trim());
    history.replaceState(null, '', `#/runs${q.size > 0 ? `?${q.toString()}` : ''}`);
    void load(false);
  };
  for (const el of [status, strategy]) el.addEventListener('change', changed);
  for (const el of [tenant, search]) el.addEventListener('input', changed);
  more.addEventListener('click', () => void load(true));
  await load(false);
  // New runs and status changes show up without a reload; "load more" pages stay as they are.
  const timer = setInterval(() => {
    if (cursor === undefined || runs.length <= 50) void load(false);
  }, REFRESH_MS);
  ctx.onLeave(() => clearInterval(timer));

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'runs-title' },
    h(
      'div',
      { class: 'run-head' },
      h('h1', { id: 'runs-title' }, 'Runs'),
      h('span', { class: 'spacer' }),
      h('a', { class: 'button', href: '#/new' }, 'New run'),
    ),
    h(
      'div',
      { class: 'filters', role: 'search' },
      h('label', { for: 'filter-status', class: 'sr-only' }, 'Status'),
      status,
      h('label', { for: 'filter-strategy', class: 'sr-only' }, 'Strategy'),
      strategy,
      ctx.session.keysRequired ? null : [h('label', { for: 'filter-tenant', class: 'sr-only' }, 'Tenant'), tenant],
      h('label', { for: 'filter-q', class: 'sr-only' }, 'Search'),
      search,
    ),
    error,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'runs' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Run', 'Status', 'Strategy', 'Tenant', 'Input', 'Created'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        body,
      ),
    ),
    more,
  );
}
