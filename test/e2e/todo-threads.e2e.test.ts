// The built-in todo tools and thread history end to end: the real OpenAI
// adapter against the mock model server, the power-exchange MCP server over
// stdio, runs in a SQLite file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ServerConfig, ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';
import { defineTool } from '../../src/tools/local/define-tool.ts';
import { LocalToolSource } from '../../src/tools/local/local-tool-source.ts';

const exchange: ServerConfig = { command: process.execPath, args: [POWER_EXCHANGE_SERVER] };
const call = (name: string, args: unknown = {}, id = name) => ({ id, name, arguments: JSON.stringify(args) });
const REMINDER = '<reminder>Update your todos.</reminder>';
const reports = new LocalToolSource({
  tools: [
    defineTool({
      name: 'readReport',
      description: 'The long monthly report.',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: () => 'Monthly report. '.repeat(400),
    }),
  ],
});

function toolMessages(request: RecordedRequest | undefined): { role: string; content: string }[] {
  return ((request?.body as { messages: { role: string; content: string }[] } | undefined)?.messages ?? []).filter(
    (m) => m.role === 'tool',
  );
}

describe('todo tools and threads e2e', () => {
  let mock: MockOpenAI;
  let dir: string;
  const open: Toolgate[] = [];
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-todo-'));
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function toolgate(config: Partial<ToolgateConfig> = {}, flags: { todo?: boolean } = {}): Promise<Toolgate> {
    const settings = resolveSettings(
      {
        model: 'openai:m',
        providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
        servers: { px: exchange },
        ...config,
      },
      flags,
      {},
    );
    const t = new Toolgate({
      settings: { ...settings, stream: false },
      tools: [reports],
      store: await openStore(`sqlite:${join(dir, 'runs.db')}`),
    });
    open.push(t);
    return t;
  }

  it(
    'todo_write replaces the list (todo_updated); todo_read ' +
      'reads it; a second in_progress is refused with the reason',
    async () => {
      const t = await toolgate({}, { todo: true });
      const first = mock.requests.length;
      const two = [
        { id: 'a', text: 'check the book', status: 'in_progress' },
        { id: 'b', text: 'buy', status: 'in_progress' },
      ];
      mock.enqueue(
        { toolCalls: [call('todo_write', { todos: two })] },
        { toolCalls: [call('todo_write', { todos: [two[0], { ...two[1], status: 'pending' }] })] },
        { toolCalls: [call('todo_read')] },
        { text: 'Listed.' },
      );
      const run = await t.run({ input: 'plan your work', threadId: 'todo-thread' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const offered = (mock.requests[first]?.body.tools as { function: { name: string } }[]).map(
        (d) => d.function.name,
      );
      assert.deepEqual(offered.slice(0, 2), ['todo_write', 'todo_read']);
      const log = await t.store.readEvents(run.id);
      const results = ofType(log, 'tool_result');
      assert.equal(results[0]?.data.ok, false);
      assert.match(results[0]?.data.error?.message ?? '', /at most one item may be in_progress; "a", "b" are/);
      assert.deepEqual(
        ofType(log, 'todo_updated').map((e) => e.data.todos.map((i) => i.status)),
        [['in_progress', 'pending']],
      );
      assert.match(
        results[2]?.data.content[0]?.type === 'text' ? results[2].data.content[0].text : '',
        /\[~\] a: check the book\n- \[ \] b: buy/,
      );
      assert.equal(
        ofType(log, 'gate_decision').filter((e) => e.data.name.startsWith('todo_')).length,
        3,
        'every todo call passed the gate',
      );

      // The list belongs to the thread: the next run on it starts with it.
      mock.enqueue({ toolCalls: [call('todo_read')] }, { text: 'Still there.' });
      const next = await t.run({ input: 'where was I?', threadId: 'todo-thread' });
      const carried = ofType(await t.store.readEvents(next.id), 'todo_updated')[0]?.data;
      assert.equal(carried?.fromThread, true);
      assert.deepEqual(
        carried?.todos.map((i) => i.id),
        ['a', 'b'],
      );
    },
  );

  it(
    'the reminder is first in the tool results after exactly ' +
      'remindAfter rounds without todo_write, and not before',
    async () => {
      const t = await toolgate({ todo: { enabled: true, remindAfter: 3 } });
      const first = mock.requests.length;
      mock.enqueue(
        { toolCalls: [call('getOrderBook', { depth: 1 })] },
        { toolCalls: [call('getOrderBook', { depth: 2 })] },
        { toolCalls: [call('getOrderBook', { depth: 3 })] },
        { toolCalls: [call('getOrderBook', { depth: 4 })] },
        { text: 'done' },
      );
      const run = await t.run({ input: 'look at the book four times' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const afterTwo = toolMessages(mock.requests[first + 2]);
      assert.equal(afterTwo.length, 2);
      assert.ok(
        afterTwo.every((m) => !m.content.includes(REMINDER)),
        'no reminder after 2 rounds',
      );
      const afterThree = toolMessages(mock.requests[first + 3]);
      assert.ok(afterThree[2]?.content.startsWith(`${REMINDER}\n`), "the reminder opens the third round's results");
      assert.equal(afterThree.filter((m) => m.content.includes(REMINDER)).length, 1, 'once');
      const afterFour = toolMessages(mock.requests[first + 4]);
      assert.equal(afterFour.filter((m) => m.content.includes(REMINDER)).length, 1, 'not again one round later');
      const reminders = ofType(await t.store.readEvents(run.id), 'reminder_injected');
      assert.deepEqual(
        reminders.map((e) => [e.data.rounds, e.data.text]),
        [[3, REMINDER]],
      );
    },
  );

  it('a todo_write resets the count: no reminder while the list is kept current', async () => {
    const t = await toolgate({ todo: { enabled: true, remindAfter: 2 } });
    const list = { todos: [{ id: '1', text: 'look', status: 'in_progress' }] };
    mock.enqueue(
      { toolCalls: [call('getOrderBook', { depth: 1 })] },
      { toolCalls: [call('todo_write', list)] },
      { toolCalls: [call('getOrderBook', { depth: 2 })] },
      { text: 'done' },
    );
    const run = await t.run({ input: 'look' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(ofType(await t.store.readEvents(run.id), 'reminder_injected').length, 0);
  });

  it(
    'a thread carries the conversation, tool outputs ' + 'included, trimmed to threads.maxTokens oldest outputs first',
    async () => {
      const t = await toolgate({ threads: { maxTokens: 400 } });
      mock.enqueue({ toolCalls: [call('readReport')] }, { text: 'The report is long.' });
      const one = await t.run({ input: 'read the report', threadId: 'long' });
      assert.equal(one.status, 'completed', JSON.stringify(one.error));
      const first = mock.requests.length;
      mock.enqueue({ text: 'Very long.' });
      const two = await t.run({ input: 'how long was it?', threadId: 'long' });
      assert.equal(two.status, 'completed', JSON.stringify(two.error));
      const trimmed = ofType(await t.store.readEvents(two.id), 'history_trimmed')[0]?.data;
      assert.ok(trimmed !== undefined, 'history_trimmed recorded');
      assert.equal(trimmed.shortened, 1);
      assert.ok(trimmed.tokensBefore > 400 && trimmed.tokensAfter <= 400, JSON.stringify(trimmed));
      const sent = (mock.requests[first]?.body as { messages: { role: string; content: string }[] }).messages;
      assert.deepEqual(
        sent.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant', 'user'],
      );
      assert.match(sent[2]?.content ?? '', /… \[shortened: \d+ characters left out\]$/);
      assert.match(sent[2]?.content ?? '', /^Monthly report\. Monthly/);
      assert.equal(sent[3]?.content, 'The report is long.');
    },
  );
});
