// A call (or a plan) waiting for a person: its arguments as a form generated from
// the tool's schema; approve, reject with a reason, or edit — edits are checked
// here against the schema and again by the server.
import type { RunEvent } from '../../../src/core/events.ts';
import { api, ApiError, type Decision, type ToolInfo } from '../api.ts';
import { h, pretty } from '../dom.ts';
import { schemaForm } from '../schema-form.ts';

const REASONS: Record<string, string> = {
  policy: 'The policy asks a person to approve this call.',
  untrusted_output: 'This write follows output from an untrusted tool.',
  outcome_unknown:
    'This write was sent and no answer came: it may have happened. Run it again, mark it done, or reject it.',
};

export function approvalPanel(options: {
  runId: string;
  pending: RunEvent<'approval_required'>['data'];
  tool: ToolInfo | undefined;
  told?: 'the model' | 'the MCP client';
}): HTMLElement {
  const { runId, pending, tool } = options;
  const error = h('div', { class: 'error', role: 'alert', 'data-testid': 'approval-error' });
  const reason = h('input', {
    id: 'reject-reason',
    type: 'text',
    placeholder: `Why (${options.told ?? 'the model'} is told)`,
    'aria-label': 'Reason for rejecting',
  });
  const buttons: HTMLButtonElement[] = [];
  const send = (body: Decision['body']): void => {
    error.textContent = '';
    for (const b of buttons) b.disabled = true;
    void api.decide(runId, { toolCallId: pending.toolCallId, body }).catch((e: unknown) => {
      error.textContent = e instanceof ApiError ? `${e.code}: ${e.message}${issuesText(e.issues)}` : String(e);
      for (const b of buttons) b.disabled = false;
    });
  };
  const button = (label: string, onclick: () => void, cls = ''): HTMLButtonElement => {
    const b = h('button', { type: 'button', class: cls, onclick }, label);
    buttons.push(b);
    return b;
  };

  const isPlan = pending.kind === 'plan';
  const form =
    isPlan || pending.reason === 'outcome_unknown'
      ? undefined
      : schemaForm({
          schema: tool?.inputSchema ?? {},
          value: pending.arguments as never,
          injected: tool?.injected ?? [],
        });
  const body: (HTMLElement | null)[] = [];
  if (isPlan) {
    const steps = Array.isArray(pending.arguments['steps']) ? pending.arguments['steps'] : [];
    body.push(h('pre', { class: 'mono' }, pretty(steps)));
  } else if (form === undefined) body.push(h('pre', { class: 'mono' }, pretty(pending.arguments)));
  else body.push(form.el);

  const actions = h(
    'div',
    { class: 'actions' },
    button(
      pending.reason === 'outcome_unknown' ? 'Run it again' : 'Approve',
      () => send({ decision: 'approve' }),
      'primary',
    ),
    form === undefined
      ? null
      : button('Approve with edits', () => {
          const read = form.read();
          if (!read.ok) {
            error.textContent =
              `Not sent — fix these first: ` + `${read.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`;
            return;
          }
          send({ decision: 'edit', arguments: read.value });
        }),
    pending.reason === 'outcome_unknown'
      ? button('It happened: mark done', () => send({ decision: 'mark_done' }))
      : null,
    h(
      'span',
      { class: 'reject' },
      reason,
      button(
        'Reject',
        () => send({ decision: 'reject', ...(reason.value.trim() === '' ? {} : { reason: reason.value.trim() }) }),
        'danger',
      ),
    ),
  );

  return h(
    'section',
    { class: 'card approval', 'data-testid': 'approval', 'aria-labelledby': 'approval-title', role: 'region' },
    h(
      'h2',
      { id: 'approval-title' },
      isPlan ? 'Approve the plan' : `Approval needed: ${pending.name}`,
      h('span', { class: `badge effect-${pending.effect}` }, pending.effect),
    ),
    h('p', {}, REASONS[pending.reason] ?? pending.reason, pending.detail === undefined ? '' : ` ${pending.detail}`),
    body,
    actions,
    error,
  );
}

function issuesText(issues: unknown): string {
  if (!Array.isArray(issues) || issues.length === 0) return '';
  return ` (${issues
    .map((i: { path?: string; message?: string }) => (`${i.path ?? ''} ` + `${i.message ?? ''}`).trim())
    .join('; ')})`;
}
