// One run, live: the answer as it streams, tool calls as cards, the plan, todos,
// reflections and guard trips, a timeline, and the raw event log beside it. The
// view is folded from the log (run-model.ts), so what it shows after any number
// of reconnects is what the log holds.
import type { GatewaySessionSettings } from '../../../src/core/runs.ts';
import { api, ApiError, eventsDownloadUrl, type ToolInfo } from '../api.ts';
import { append, clear, formatTime, h } from '../dom.ts';
import { followRun, type StreamState } from '../follow-run.ts';
import type { AppContext } from '../main.ts';
import { applyEvent, emptyView } from '../run-model.ts';
import { forkOfMetadata, replayOfMetadata } from '../replay-model.ts';
import { approvalPanel } from './approval-panel.ts';
import { addForkControl } from './fork-form.ts';
import { originView } from './run-origin.ts';
import { callCard, eventRow, notesPanel, planPanel, statusPill, timeline, todoPanel } from './run-parts.ts';

/** After these nothing is left to fork: a fork starts from the run's first user message to the event before its end. */
const TERMINAL_TYPES = new Set(['run_completed', 'run_failed', 'run_cancelled']);

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  ended: 'run ended',
  error: 'disconnected',
};

export async function runView(ctx: AppContext, runId: string): Promise<HTMLElement> {
  const run = await api.getRun(runId);
  // A gateway session's run: an MCP client's calls, recorded as they pass the gate. No model drives it and nothing
  // reads a message.
  const gateway = run.settings?.gateway;
  let tools: ToolInfo[] | undefined;
  // The approval form is built from the tool's schema, so it is shown once the tools have come (or failed to):
  // a form shown before and rebuilt then would throw away what a person had started typing.
  let toolsSettled = false;
  const toolsCame = (): void => {
    toolsSettled = true;
    schedule();
  };
  void api.tools().then((answer) => {
    tools = answer.tools;
    toolsCame();
  }, toolsCame);
  const view = emptyView();

  const indicator = h(
    'span',
    { class: 'conn conn-connecting', 'data-testid': 'stream-state', role: 'status', 'aria-live': 'polite' },
    STATE_TEXT.connecting,
  );
  const status = h('span', {});
  const answer = h('div', { class: 'answer', 'data-testid': 'answer', 'aria-live': 'polite' });
  const approvalSlot = h('div', {});
  const originSlot = h('div', {});
  let originKey = '';
  let forkableFrom: number | undefined;
  const calls = h('div', { class: 'calls', 'data-testid': 'calls' });
  const extras = h('div', {});
  const log = h('div', { class: 'event-log', 'data-testid': 'event-log' });
  const logCount = h('span', { class: 'muted', 'data-testid': 'event-count' }, '0 events');
  const cancel = h('button', { type: 'button', class: 'danger ghost' }, 'Cancel run');
  const message = h('input', {
    id: 'message',
    type: 'text',
    placeholder: 'Send the run a message',
    'aria-label': 'Message to the run',
  });
  const messageError = h('div', { class: 'error', role: 'alert' });
  const messageForm = h('form', { class: 'inline message-form' }, message, h('button', { type: 'submit' }, 'Send'));
  const messageSection = h('section', { class: 'card', 'aria-label': 'message' }, messageForm, messageError);
  let approvalKey = '';
  let duplicates = 0;
  let reconnects = 0;

  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    void api.cancel(runId, 'cancelled from the console').catch((e: unknown) => {
      cancel.disabled = false;
      messageError.textContent = e instanceof Error ? e.message : String(e);
    });
  });
  messageForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = message.value.trim();
    if (text === '') return;
    messageError.textContent = '';
    void api.message(runId, text).then(
      () => (message.value = ''),
      (e: unknown) => (messageError.textContent = e instanceof ApiError ? `${e.code}: ${e.message}` : String(e)),
    );
  });

  let pendingFrame = false;
  const render = (): void => {
    pendingFrame = false;
    clear(status);
    status.append(statusPill(view.status));
    cancel.hidden = view.finished;
    messageSection.hidden = view.finished || gateway !== undefined;
    const key = view.pending === undefined ? '' : `${view.pending.toolCallId}:${toolsSettled ? 1 : 0}`;
    if (key !== approvalKey) {
      approvalKey = key;
      clear(approvalSlot);
      if (view.pending !== undefined && !toolsSettled)
        approvalSlot.append(
          h(
            'section',
            { class: 'card muted', 'aria-busy': 'true' },
            'A call waits for approval: loading its tool’s schema…',
          ),
        );
      else if (view.pending !== undefined)
        approvalSlot.append(
          approvalPanel({
            runId,
            pending: view.pending,
            tool: tools?.find((t) => t.name === view.pending?.name),
            told: gateway === undefined ? 'the model' : 'the MCP client',
          }),
        );
    }
    const origin = {
      forkOf: view.forkOf ?? forkOfMetadata(run.metadata),
      replayOf: view.replay?.of ?? replayOfMetadata(run.metadata),
      replay: view.replay,
    };
    const shown = JSON.stringify([origin.forkOf, origin.replayOf, origin.replay !== undefined]);
    if (shown !== originKey) {
      originKey = shown;
      clear(originSlot);
      originSlot.append(...originView(origin));
    }
    clear(answer);
    const turns = view.turns.filter((t) => t.purpose === undefined);
    const text = view.output ?? turns.at(-1)?.text ?? '';
    append(
      answer,
      view.error === undefined ? null : h('p', { class: 'error' }, `${view.error.code}: ${view.error.message}`),
      view.cancelled === undefined ? null : h('p', { class: 'muted' }, `Cancelled: ${view.cancelled}`),
      text === ''
        ? h('p', { class: 'muted' }, waitingText())
        : h('div', { class: 'answer-text', 'data-testid': 'answer-text' }, text),
    );
    answer.dataset['final'] = String(view.output !== undefined);
    clear(calls);
    if (view.order.length === 0) calls.append(h('p', { class: 'muted' }, 'No tool calls yet.'));
    for (const id of view.order) {
      const call = view.calls.get(id);
      if (call !== undefined) calls.append(callCard(call));
    }
    clear(extras);
    extras.append(planPanel(view) ?? '', todoPanel(view) ?? '', notesPanel(view) ?? '', timeline(view.spans) ?? '');
  };
  const waitingText = (): string => {
    if (gateway !== undefined)
      return view.finished
        ? '(no summary)'
        : 'The session is open: the MCP client’s calls are listed below as they come.';
    return view.finished ? '(no answer)' : 'Waiting for the model…';
  };
  const schedule = (): void => {
    if (pendingFrame) return;
    pendingFrame = true;
    requestAnimationFrame(render);
  };

  const follower = followRun({
    runId,
    after: 0,
    onEvent: (event) => {
      if (log.querySelector(`[data-event-id="${event.id}"]`) !== null) {
        // The follower never delivers an id twice; counted so a test (or a person) would see it if it did.
        duplicates += 1;
        log.dataset['duplicates'] = String(duplicates);
        return;
      }
      applyEvent(view, event);
      const row = eventRow(event);
      if (event.type === 'user_message') forkableFrom ??= event.id;
      // A gateway session has no model to drive a fork; nothing follows the end.
      if (gateway === undefined && forkableFrom !== undefined && !TERMINAL_TYPES.has(event.type))
        addForkControl(row, {
          runId,
          eventId: event.id,
          opened: (forkId) => ctx.navigate(`#/runs/${encodeURIComponent(forkId)}`),
        });
      log.append(row);
      logCount.textContent = `${view.lastId} events`;
      log.dataset['lastId'] = String(view.lastId);
      schedule();
    },
    onState: (state, detail) => {
      indicator.className = `conn conn-${state}`;
      indicator.textContent = detail === undefined ? STATE_TEXT[state] : `${STATE_TEXT[state]} (${detail})`;
      indicator.dataset['state'] = state;
      if (state === 'reconnecting') reconnects += 1;
      indicator.dataset['reconnects'] = String(reconnects);
    },
  });
  ctx.onLeave(() => follower.close());
  render();

  return h(
    'div',
    { class: 'run-page' },
    h(
      'header',
      { class: 'run-head' },
      h('h1', {}, 'Run ', h('code', { 'data-testid': 'run-id' }, run.id)),
      status,
      indicator,
      h('span', { class: 'spacer' }),
      h(
        'a',
        {
          class: 'button ghost',
          href: eventsDownloadUrl(run.id),
          download: `${run.id}.jsonl`,
          'data-testid': 'download-jsonl',
        },
        'Download events (JSONL)',
      ),
      cancel,
    ),
    h(
      'p',
      { class: 'meta', 'data-testid': 'run-meta' },
      gateway === undefined ? `model ${run.model}` : `MCP gateway session · ${gatewayClient(gateway)}`,
      gateway === undefined && run.settings?.strategy !== undefined ? ` · strategy ${run.settings.strategy}` : '',
      run.tenantId === undefined ? '' : ` · tenant ${run.tenantId}`,
      run.threadId === undefined ? '' : ` · thread ${run.threadId}`,
      run.dryRun === true ? ' · dry run' : '',
      ` · created ${formatTime(run.createdAt)}`,
    ),
    originSlot,
    h('blockquote', { class: 'prompt' }, run.input),
    approvalSlot,
    h(
      'div',
      { class: 'run-grid' },
      h(
        'div',
        { class: 'run-main' },
        h(
          'section',
          { class: 'card', 'aria-label': gateway === undefined ? 'answer' : 'session' },
          h('h2', {}, gateway === undefined ? 'Answer' : 'Session'),
          answer,
        ),
        h('section', { class: 'card', 'aria-label': 'tool calls' }, h('h2', {}, 'Tool calls'), calls),
        extras,
        messageSection,
      ),
      h('aside', { class: 'card run-log', 'aria-label': 'raw event log' }, h('h2', {}, 'Event log ', logCount), log),
    ),
  );
}

function gatewayClient(gateway: GatewaySessionSettings): string {
  const client =
    gateway.client === undefined
      ? 'an unnamed client'
      : `client ${gateway.client.name}${gateway.client.version === undefined ? '' : ` ${gateway.client.version}`}`;
  return (
    `${client} over ` +
    `${gateway.transport}${gateway.protocolVersion === undefined ? '' : ` (MCP ${gateway.protocolVersion})`}`
  );
}
