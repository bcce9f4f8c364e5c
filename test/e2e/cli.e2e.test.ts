// The `toolgate` command as a user runs it: a child process, real MCP servers, the mock model.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

const EXCHANGE = `node ${JSON.stringify(POWER_EXCHANGE_SERVER)}`;

describe('toolgate CLI', () => {
  let mock: MockOpenAI;
  let dir: string;
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run --json prints every event exactly once, in order, and exits 0', async () => {
    mock.enqueue({ toolCalls: [{ id: 'c1', name: 'getMarketMetrics', arguments: '{}' }] }, { text: 'Market is calm.' });
    const { code, stdout, stderr } = await runCli([
      'run',
      'How is the market?',
      '--model',
      'openai:mock',
      '--base-url',
      mock.url,
      '--api-key',
      'k',
      '--mcp',
      EXCHANGE,
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
    );
    assert.equal(new Set(events.map((e) => e.runId)).size, 1);
    const types: string[] = events.map((e) => e.type);
    for (const t of ['run_started', 'user_message', 'assistant_message', 'tool_call', 'tool_result', 'run_completed'])
      assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
    const done = events.at(-1);
    assert.equal(done?.type === 'run_completed' ? done.data.output : undefined, 'Market is calm.');
    assert.equal(mock.requests.at(-1)?.headers.authorization, 'Bearer k');
  });

  it('human output streams the answer to stdout; tool lines and the summary go to stderr', async () => {
    mock.enqueue(
      { text: 'Looking.', toolCalls: [{ id: 'c1', name: 'getOrderBook', arguments: '{"depth":2}' }] },
      { text: 'Best ask is shown above.' },
    );
    const { code, stdout, stderr } = await runCli([
      'run',
      'book?',
      '-m',
      'openai:mock',
      '--base-url',
      mock.url,
      '--mcp',
      EXCHANGE,
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Looking\.\nBest ask is shown above\.\n$/);
    assert.match(stderr, /→ getOrderBook\(\{"depth":2\}\)/);
    assert.match(stderr, /← getOrderBook ok \d+(\.\d+)? ms: /);
    assert.match(stderr, /✓ completed · 2 steps · [\d,]+ tokens \(\d+ in, \d+ out\) · [\d.]+ s · run_/);
  });

  it('exits 1 when the run fails, saying why', async () => {
    mock.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const { code, stderr } = await runCli(['run', 'hi', '--model', 'openai:mock', '--base-url', mock.url]);
    assert.equal(code, 1);
    assert.match(stderr, /run failed \(model_auth\).*Incorrect API key/);
  });

  it('exits 2 on usage and config errors, with a message that says what to fix', async () => {
    const noPrompt = await runCli(['run', '--model', 'openai:x']);
    assert.equal(noPrompt.code, 2);
    assert.match(noPrompt.stderr, /needs a prompt/);
    const badProvider = await runCli(['run', 'hi', '--model', 'nope:x']);
    assert.equal(badProvider.code, 2);
    assert.match(
      badProvider.stderr,
      new RegExp(
        String.raw`unknown model provider "nope".*known providers: openai, ` +
          String.raw`anthropic, ollama, scripted\. .*declared under providers:`,
      ),
    );
    const noModel = await runCli(['run', 'hi'], { cwd: dir });
    assert.equal(noModel.code, 2);
    assert.match(noModel.stderr, /no model given: pass --model/);
    const badFlag = await runCli(['run', 'hi', '--modle', 'x']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /--modle/);
    writeFileSync(join(dir, 'bad.yaml'), 'model: openai:x\nservers:\n  pe:\n    comand: node\n');
    const badConfig = await runCli(['run', 'hi', '--config', join(dir, 'bad.yaml')]);
    assert.equal(badConfig.code, 2);
    assert.match(badConfig.stderr, /bad\.yaml is not a valid toolgate config/);
    assert.match(badConfig.stderr, /servers\.pe/);
    const badSteps = await runCli(['run', 'hi', '--model', 'openai:x', '--max-steps', '0']);
    assert.equal(badSteps.code, 2);
    assert.match(badSteps.stderr, /--max-steps must be a positive integer/);
  });

  it('reads the model and servers from toolgate.yaml in the working directory', async () => {
    mock.enqueue({ text: 'from config' });
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:from-file\nproviders:\n  openai:\n    baseUrl: ${mock.url}\n    apiKey: ` +
        (`env:TEST_KEY\nservers:\n  pe:\n    command: ${JSON.stringify(process.execPath)}\n ` +
          `   args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]\n`),
    );
    const { code, stdout, stderr } = await runCli(['run', 'hi'], { cwd: dir, env: { TEST_KEY: 'secret-from-env' } });
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'from config');
    const request = mock.requests.at(-1);
    assert.equal(request?.body.model, 'from-file');
    assert.equal(request?.headers.authorization, 'Bearer secret-from-env');
    assert.ok((request?.body.tools as unknown[]).length >= 8, 'the configured server offered its tools');
    rmSync(join(dir, 'toolgate.yaml'));
  });

  it('tools lists every tool with its server, annotations and arguments', async () => {
    const human = await runCli(['tools', '--mcp', EXCHANGE]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^power-exchange \(\d+ tools\)/m);
    assert.match(human.stdout, /getOrderBook {2}READ \(annotation\) {2}\[read-only/);
    assert.match(human.stdout, /placeOrder {2}WRITE \(annotation, needs approval\) {2}\[writes/);
    assert.match(human.stdout, /args: userId: string, side: "BUY"\|"SELL"/);
    const json = await runCli(['tools', '--mcp', EXCHANGE, '--json']);
    const tools = JSON.parse(json.stdout) as {
      name: string;
      effect: string;
      origin: { server: string };
      inputSchema: object;
      annotations?: { readOnlyHint?: boolean };
    }[];
    const place = tools.find((t) => t.name === 'placeOrder');
    assert.equal(place?.origin.server, 'power-exchange');
    assert.equal(place?.annotations?.readOnlyHint, false);
    assert.equal(tools.find((t) => t.name === 'getOrderBook')?.annotations?.readOnlyHint, true);
    assert.equal(place?.effect, 'write');
    assert.equal(tools.find((t) => t.name === 'getOrderBook')?.effect, 'read');
  });

  it('toolgate demo runs the scripted model against the example server and says it is scripted', async () => {
    const { code, stdout, stderr } = await runCli(['demo']);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /SCRIPTED model/);
    assert.match(stderr, /--model openai:/);
    assert.match(stderr, /← getMarketMetrics ok/);
    assert.match(stderr, /← getUserWallet ok/);
    assert.match(stdout, /This answer is scripted/);
  });

  it(
    'a write needing approval: exit 3 without a terminal, ' +
      'saying how to approve; --yes approves; --dry-run previews',
    async () => {
      const order = '{"userId":"bob","side":"BUY","price":90,"qty":1,"symbol":"DE-BASE-D+1"}';
      const base = ['run', 'buy', '--model', 'openai:mock', '--base-url', mock.url, '--mcp', EXCHANGE];

      mock.enqueue({ toolCalls: [{ id: 'p1', name: 'placeOrder', arguments: order }] });
      const waiting = await runCli(base);
      assert.equal(waiting.code, 3, waiting.stderr);
      assert.match(waiting.stderr, /placeOrder \(write\) needs approval/);
      assert.match(waiting.stderr, /--yes/);

      mock.enqueue({ toolCalls: [{ id: 'p2', name: 'placeOrder', arguments: order }] }, { text: 'Bought.' });
      const approved = await runCli([...base, '--yes', '--json']);
      assert.equal(approved.code, 0, approved.stderr);
      const events = approved.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RunEvent);
      const types: string[] = events.map((e) => e.type);
      assert.ok(types.indexOf('approval_required') < types.indexOf('input_received'));
      assert.ok(types.indexOf('input_received') < types.indexOf('tool_call'));
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
        'one numbered log across the approval',
      );

      mock.enqueue({ toolCalls: [{ id: 'p3', name: 'placeOrder', arguments: order }] }, { text: 'Preview done.' });
      const dry = await runCli([...base, '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stderr, /← placeOrder ok .*DRY RUN/);
    },
  );

  it('parse prints the extraction as JSON, from a file, standard input or a JSONL corpus', async () => {
    const file = join(dir, 'reply.txt');
    writeFileSync(file, 'Sure.\n<tool_call>{"name": "getOrderBook", "arguments": {"depth": 2,}}</tool_call>');
    const one = await runCli(['parse', '--tools', 'getOrderBook,placeOrder', file]);
    assert.equal(one.code, 0, one.stderr);
    const result = JSON.parse(one.stdout) as {
      calls: { name: string; arguments: object }[];
      content: string;
      diagnostics: { code: string }[];
    };
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['getOrderBook', { depth: 2 }]],
    );
    assert.equal(result.content, 'Sure.');
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired'));

    const toolsFile = join(dir, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify([{ name: 'getOrderBook', inputSchema: { type: 'object' } }]));
    const corpus = join(dir, 'corpus.jsonl');
    writeFileSync(
      corpus,
      [
        JSON.stringify({ id: 'a', text: '<tool_call>{"name":"getOrderBook","arguments":{}}</tool_call>' }),
        JSON.stringify({ id: 'b', text: 'no calls here', tools: ['getOrderBook'] }),
        JSON.stringify({ id: 'c', text: '{"name": "rm_rf", "arguments": {}}', tools: ['getOrderBook'] }),
      ].join('\n'),
    );
    const lines = await runCli(['parse', '--jsonl', '--tools-file', toolsFile, corpus]);
    assert.equal(lines.code, 0, lines.stderr);
    const out = lines.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; calls: unknown[] });
    assert.deepEqual(
      out.map((o) => [o.id, o.calls.length]),
      [
        ['a', 1],
        ['b', 0],
        ['c', 0],
      ],
    );

    const bad = await runCli(['parse', '--jsonl', corpus, '--tools', 'x', '--tools-file', toolsFile]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /either --tools a,b,c or --tools-file/);
  });

  it(
    'parse --jsonl reads whole messages: native calls repaired ' +
      'and typed, reasoning, schemas; a bad line names what is wrong',
    async () => {
      const tools = [
        { name: 'tag', inputSchema: { type: 'object', properties: { tags: { type: 'array' } }, required: ['tags'] } },
        'getOrderBook',
      ];
      const corpus = join(dir, 'messages.jsonl');
      writeFileSync(
        corpus,
        [
          JSON.stringify({
            id: 'native',
            toolCalls: [{ id: 'c1', name: 'functions.tag:0', arguments: "{'tags': \"['a', 'b']\",}" }],
            tools,
          }),
          JSON.stringify({
            id: 'reasoning',
            text: '',
            reasoning: 'Need the book.\n<tool_call>{"name": "getOrderBook", "arguments": {"depth": 1}}</tool_call>',
            tools,
          }),
          JSON.stringify({
            id: 'old-form',
            text: '<tool_call>{"name": "getOrderBook", "arguments": {}}</tool_call>',
            tools: ['getOrderBook'],
          }),
        ].join('\n'),
      );
      const lines = await runCli(['parse', '--jsonl', corpus]);
      assert.equal(lines.code, 0, lines.stderr);
      type Line = {
        id: string;
        calls: { name: string; arguments: object; origin: string }[];
        diagnostics: { code: string; repairs?: string[] }[];
        content: string;
      };
      const out = lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      assert.deepEqual(
        out.map((o) => [o.id, o.calls.map((c) => [c.name, c.arguments, c.origin])]),
        [
          ['native', [['tag', { tags: ['a', 'b'] }, 'native']]],
          ['reasoning', [['getOrderBook', { depth: 1 }, 'reasoning']]],
          ['old-form', [['getOrderBook', {}, 'text']]],
        ],
      );
      const repairs = out[0]?.diagnostics.find((d) => d.code === 'repaired')?.repairs ?? [];
      for (const kind of ['stripped_name_index', 'stripped_name_prefix', 'single_quoted_strings', 'typed_by_schema'])
        assert.ok(repairs.includes(kind), `${kind} in ${repairs.join(',')}`);
      assert.ok(out[1]?.diagnostics.some((d) => d.code === 'call_in_reasoning'));

      for (const [line, message] of [
        [
          { text: 'x', toolCalls: [{ name: 'tag', arguments: { tags: [] } }], tools },
          /line 1: toolCalls\[0\]\.arguments must be the raw arguments string/,
        ],
        [{ tools }, /line 1: it has none of "text", "reasoning" or "toolCalls"/],
        [{ text: 'x', tools: [{ name: 'tag', inputSchema: 'object' }] }, /line 1: "tools" must be a list/],
        [{ text: 5, tools }, /line 1: "text" must be a string/],
      ] as const) {
        const file = join(dir, 'bad.jsonl');
        writeFileSync(file, JSON.stringify(line));
        const bad = await runCli(['parse', '--jsonl', file]);
        assert.equal(bad.code, 2, bad.stdout);
        assert.match(bad.stderr, message);
      }
    },
  );
});
