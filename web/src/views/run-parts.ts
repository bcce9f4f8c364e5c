// Pieces of the run view, each drawn from the folded RunView.
import { formatMs, h, pretty } from '../dom.ts';
import type { CallCard, RunView, Span } from '../run-model.ts';
import { DECISION_TEXT } from '../replay-model.ts';

export function statusPill(status: string): HTMLElement {
  return h('span', { class: `pill status-${status}`, 'data-testid': 'run-status' }, status.replace(/_/g, ' '));
}

export function callCard(call: CallCard): HTMLElement {
  const injected = new Set(call.injected.map((i) => i.key));
  const args = call.arguments ?? (typeof call.proposed === 'object' ? call.proposed : undefined);
  const argRows =
    args === undefined
      ? [h('pre', { class: 'mono' }, typeof call.proposed === 'string' ? call.proposed : '')]
      : Object.entries(args).map(([key, value]) =>
          h(
            'div',
            { class: `arg${injected.has(key) ? ' injected' : ''}` },
            h('span', { class: 'arg-key' }, key),
            h('code', {}, JSON.stringify(value)),
            injected.has(key)
              ? h('span', { class: 'badge injected', title: 'set by the server, never shown to the model' }, 'injected')
              : null,
          ),
        );
  const result = call.result;
  return h(
    'article',
    {
      class: `call state-${call.state}`,
      'data-testid': 'call-card',
      'data-call-id': call.id,
      'data-tool': call.name,
      'aria-label': `tool call ${call.name}`,
    },
    h(
      'header',
      {},
      h('strong', {}, call.name),
      call.effect === undefined ? null : h('span', { class: `badge effect-${call.effect}` }, call.effect),
      call.decision === undefined
        ? null
        : h(
            'span',
            { class: `badge decision-${call.decision}`, 'data-testid': 'call-decision' },
            DECISION_TEXT[call.decision] ?? call.decision,
          ),
      h('span', { class: 'badge', 'data-testid': 'call-state' }, call.state.replace(/_/g, ' ')),
      result === undefined ? null : h('span', { class: 'muted' }, formatMs(result.latencyMs)),
    ),
    call.reason === undefined && call.policyRule === undefined
      ? null
      : h('p', { class: 'why' }, call.reason ?? '', call.policyRule === undefined ? '' : ` (rule ${call.policyRule})`),
    h('div', { class: 'args' }, argRows),
    call.normalisations.length === 0
      ? null
      : h(
          'ul',
          { class: 'normalised', 'aria-label': 'normalised arguments' },
          call.normalisations.map((n) =>
            h('li', {}, `${n.path}: ${JSON.stringify(n.from)} → ${JSON.stringify(n.to)} (${n.rule})`),
          ),
        ),
    call.issues.length === 0
      ? null
      : h(
          'ul',
          { class: 'issues' },
          call.issues.map((i) => h('li', {}, `${i.path === '' ? '(arguments)' : i.path}: ${i.message}`)),
        ),
    (call.approval?.notices ?? []).length === 0
      ? null
      : h(
          'ul',
          { class: 'why', 'aria-label': 'notifications', 'data-testid': 'approval-notices' },
          (call.approval?.notices ?? []).map((text) => h('li', {}, text)),
        ),
    call.approval?.decision === undefined
      ? null
      : h(
          'p',
          { class: 'why', 'data-testid': 'approval-decision' },
          `Decision: ${call.approval.decision}${call.approval.via === undefined ? '' : ` ${call.approval.via}`}` +
            `${call.approval.by === undefined ? '' : ` by ${call.approval.by}`}` +
            `${call.approval.note === undefined ? '' : ` — ${call.approval.note}`}`,
        ),
    result === undefined
      ? null
      : h(
          'div',
          { class: `result ${result.ok ? 'ok' : 'failed'}`, 'data-testid': 'call-result' },
          result.error === undefined ? null : h('strong', {}, `${result.error.code}: ${result.error.message}`),
          result.dryRun === true ? h('span', { class: 'badge' }, 'dry run: not executed') : null,
          result.markedDone === true ? h('span', { class: 'badge' }, 'marked done by a person') : null,
          result.untrusted === true ? h('span', { class: 'badge warn' }, 'untrusted output') : null,
          result.text === '' ? null : h('pre', { class: 'mono' }, result.text),
        ),
  );
}

export function planPanel(view: RunView): HTMLElement | null {
  const plan = view.plan;
  if (plan === undefined) return null;
  return h(
    'section',
    { class: 'card', 'data-testid': 'plan', 'aria-label': 'plan' },
    h('h2', {}, plan.revision > 0 ? `Plan (revision ${plan.revision})` : 'Plan'),
    plan.reason === undefined ? null : h('p', { class: 'why' }, plan.reason),
    h(
      'ol',
      { class: 'plan-steps' },
      plan.steps.map((step) =>
        h(
          'li',
          { class: `state-${step.state}` },
          step.kind === 'tool'
            ? h('code', {}, `${step.name ?? '?'}(${JSON.stringify(step.arguments ?? {})})`)
            : (step.text ?? ''),
          ' ',
          h('span', { class: 'badge' }, step.state),
        ),
      ),
    ),
    plan.finalAnswer === undefined ? null : h('p', {}, `Final answer: ${plan.finalAnswer}`),
  );
}

export function notesPanel(view: RunView): HTMLElement | null {
  const items: HTMLElement[] = [];
  if (view.routed !== undefined)
    items.push(
      h('li', {}, h('strong', {}, 'Routed'), ` to ${view.routed.route} by ${view.routed.by}: ${view.routed.reason}`),
    );
  for (const r of view.reflections)
    items.push(
      h(
        'li',
        { 'data-testid': 'reflection' },
        h('strong', {}, `Reflection (${r.trigger})`),
        ` → ${r.verdict}: ${r.reason}`,
      ),
    );
  for (const g of view.guardTrips)
    items.push(
      h(
        'li',
        { class: 'warn', 'data-testid': 'guard-trip' },
        h('strong', {}, `Guard: ${g.code}`),
        ` (${g.action}) ${g.message}`,
      ),
    );
  for (const t of view.toolChanges) {
    items.push(
      h(
        'li',
        { class: 'warn', 'data-testid': 'tool-changed' },
        h('strong', {}, `Tool changed: ${t.name}`),
        ` on ${t.server}, hidden until accepted (toolgate tools ` +
          `--accept ${t.name}): ${t.changes.slice(0, 3).join('; ')}`,
      ),
    );
  }
  for (const u of view.upstreamRequests)
    items.push(
      h(
        'li',
        { class: u.outcome === 'forwarded' ? '' : 'warn', 'data-testid': 'upstream-request' },
        h('strong', {}, `${u.server} asked the client: ${u.method}`),
        ` (${u.summary}) ${u.outcome}${u.reason === undefined ? '' : `: ${u.reason}`}`,
      ),
    );
  for (const m of view.modeChanges)
    items.push(
      h(
        'li',
        { class: 'warn', 'data-testid': 'tool-mode-changed' },
        h('strong', {}, `Tool mode: ${m.from} → ${m.to}`),
        ` at step ${m.step}: ${m.reason}`,
      ),
    );
  for (const p of view.retries)
    items.push(
      h(
        'li',
        {},
        h('strong', {}, `Parse retry ${p.attempt}/${p.maxAttempts}`),
        `: ${p.diagnostics.map((d) => d.message).join('; ')}`,
      ),
    );
  if (items.length === 0) return null;
  return h(
    'section',
    { class: 'card', 'aria-label': 'notes' },
    h('h2', {}, 'Strategy and guard'),
    h('ul', { class: 'notes' }, items),
  );
}

export function todoPanel(view: RunView): HTMLElement | null {
  if (view.todos.length === 0) return null;
  return h(
    'section',
    { class: 'card', 'data-testid': 'todos', 'aria-label': 'todo list' },
    h('h2', {}, 'Todo list'),
    h(
      'ul',
      { class: 'todos' },
      view.todos.map((t) =>
        h('li', { class: `todo-${t.status}` }, h('span', { class: 'badge' }, t.status.replace('_', ' ')), ' ', t.text),
      ),
    ),
  );
}

/** Model and tool spans on one time axis from the run's first span. */
export function timeline(spans: readonly Span[]): HTMLElement | null {
  if (spans.length === 0) return null;
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end));
  const total = Math.max(1, end - start);
  return h(
    'section',
    { class: 'card', 'data-testid': 'timeline', 'aria-label': 'timeline' },
    h('h2', {}, 'Timeline'),
    h(
      'div',
      { class: 'waterfall', role: 'list' },
      spans.map((s) =>
        h(
          'div',
          { class: 'span-row', role: 'listitem' },
          h('span', { class: 'span-label' }, s.label),
          h('span', { class: 'span-track' }, bar(s, start, total)),
          h('span', { class: 'span-ms' }, formatMs(s.end - s.start)),
        ),
      ),
    ),
  );
}

/** Positioned through the CSSOM: the page's CSP allows no inline style attributes. */
function bar(s: Span, start: number, total: number): HTMLElement {
  const el = h('span', { class: `span-bar ${s.kind}${s.ok ? '' : ' failed'}` });
  el.style.left = `${(((s.start - start) / total) * 100).toFixed(2)}%`;
  el.style.width = `${Math.max(0.5, ((s.end - s.start) / total) * 100).toFixed(2)}%`;
  return el;
}

export function eventRow(event: { id: number; type: string; time: string; data: unknown }): HTMLElement {
  return h(
    'details',
    { class: 'event', 'data-event-id': String(event.id), 'data-event-type': event.type },
    h(
      'summary',
      {},
      h('span', { class: 'event-id' }, String(event.id)),
      ' ',
      h('span', { class: 'event-type' }, event.type),
    ),
    h('pre', { class: 'mono' }, pretty(event.data)),
  );
}
