import { api, ApiError, type CreateRunRequest } from '../api.ts';
import { h } from '../dom.ts';
import type { AppContext } from '../main.ts';

const STRATEGIES = ['react', 'plan', 'reflect', 'auto'];

function newKey(): string {
  return crypto.randomUUID();
}

/** Starts a run: prompt, model, strategy, dry-run, context, thread, idempotency key. */
export async function newRunView(ctx: AppContext): Promise<HTMLElement> {
  const models = await api.models().catch(() => ({ models: [] as string[] }) as { default?: string; models: string[] });
  const prompt = h('textarea', {
    id: 'prompt',
    name: 'input',
    rows: 4,
    required: true,
    placeholder: 'What should the model do?',
  });
  const modelList = h(
    'datalist',
    { id: 'model-choices' },
    models.models.map((m) => h('option', { value: m })),
  );
  const model = h('input', {
    id: 'model',
    name: 'model',
    type: 'text',
    list: 'model-choices',
    value: models.default ?? models.models[0] ?? '',
    spellcheck: 'false',
  });
  const strategy = h(
    'select',
    { id: 'strategy', name: 'strategy' },
    h('option', { value: '' }, '(server default)'),
    STRATEGIES.map((s) => h('option', { value: s }, s)),
  );
  const dryRun = h('input', { id: 'dry-run', name: 'dryRun', type: 'checkbox' });
  const todo = h('input', { id: 'todo', name: 'todo', type: 'checkbox' });
  const context = h('textarea', {
    id: 'context',
    name: 'context',
    rows: 3,
    class: 'mono',
    placeholder: '{"accountId": "A-1"}',
  });
  const thread = h('input', { id: 'thread', name: 'threadId', type: 'text', spellcheck: 'false' });
  const key = h('input', {
    id: 'idempotency-key',
    name: 'idempotencyKey',
    type: 'text',
    value: newKey(),
    spellcheck: 'false',
  });
  const error = h('div', { class: 'error', role: 'alert', 'data-testid': 'new-run-error' });
  const submit = h('button', { type: 'submit' }, 'Start run');

  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-run-title' },
    h('h1', { id: 'new-run-title' }, 'New run'),
    h('div', { class: 'form-row' }, h('label', { for: 'prompt' }, 'Prompt'), prompt),
    h(
      'div',
      { class: 'grid-2' },
      h(
        'div',
        { class: 'form-row' },
        h('label', { for: 'model' }, 'Model'),
        model,
        modelList,
        h(
          'div',
          { class: 'hint' },
          models.models.length === 0 ? 'The server default is used.' : `Allowed here: ${models.models.join(', ')}`,
        ),
      ),
      h('div', { class: 'form-row' }, h('label', { for: 'strategy' }, 'Strategy'), strategy),
    ),
    h(
      'div',
      { class: 'form-row inline' },
      dryRun,
      h('label', { for: 'dry-run' }, 'Dry run (writes are previewed, never executed)'),
    ),
    h('div', { class: 'form-row inline' }, todo, h('label', { for: 'todo' }, 'Offer the todo list tools')),
    h(
      'div',
      { class: 'form-row' },
      h('label', { for: 'context' }, 'Context (JSON object, for injected arguments; never shown to the model)'),
      context,
    ),
    h(
      'div',
      { class: 'grid-2' },
      h('div', { class: 'form-row' }, h('label', { for: 'thread' }, 'Thread id (optional)'), thread),
      h(
        'div',
        { class: 'form-row' },
        h('label', { for: 'idempotency-key' }, 'Idempotency key'),
        h(
          'div',
          { class: 'inline' },
          key,
          h('button', { type: 'button', class: 'ghost', onclick: () => (key.value = newKey()) }, 'New key'),
        ),
        h('div', { class: 'hint' }, 'Sending the same request with the same key returns the same run.'),
      ),
    ),
    error,
    submit,
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    const body: CreateRunRequest = { input: prompt.value };
    if (prompt.value.trim() === '') {
      error.textContent = 'Write a prompt first.';
      prompt.focus();
      return;
    }
    if (model.value.trim() !== '') body.model = model.value.trim();
    if (strategy.value !== '') body.strategy = strategy.value;
    if (dryRun.checked) body.dryRun = true;
    if (todo.checked) body.todo = true;
    if (thread.value.trim() !== '') body.threadId = thread.value.trim();
    if (context.value.trim() !== '') {
      try {
        const parsed = JSON.parse(context.value) as unknown;
        if (!isJsonObject(parsed)) throw new Error('it must be a JSON object');
        body.context = parsed;
      } catch (e) {
        error.textContent = `Context is not a JSON object: ${e instanceof Error ? e.message : String(e)}`;
        context.focus();
        return;
      }
    }
    submit.disabled = true;
    void api
      .startRun(body, key.value.trim())
      .then((run) => ctx.navigate(`#/runs/${encodeURIComponent(run.id)}`))
      .catch((e: unknown) => {
        error.textContent = e instanceof ApiError ? `${e.code}: ${e.message}` : String(e);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  queueMicrotask(() => prompt.focus());
  return form;
}

/** JSON.parse's answer, when it is an object (its members are JSON: they came from JSON text). */
function isJsonObject(value: unknown): value is NonNullable<CreateRunRequest['context']> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
