// Hardening of the runs API against real `toolgate serve` processes, the mock
// model and the power-exchange example: models are the operator's choice (no
// file behind a model id is ever read for a client), errors before the stream
// are HTTP errors (?wait=first-turn), tenants "*" bind callers without a
// tenant, a key listed twice stops the server, context is redacted and lists
// are summaries, an MCP server that cannot start refuses the run up front.
// Each `it` fails on the code before these fixes; the few "control" lines in
// them (an allowed model is accepted) only show a refusal is selective.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToolgateConfig } from '../../src/config/config-schema.ts';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { REDACTED } from '../../src/gate/create-redactor.ts';
import { ofType } from '../support/events.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli, startServe, type StartedProcess } from '../support/processes.ts';
import { collectSse } from '../support/sse-client.ts';

const ACME = 'acme-key-0123456789';
const GLOBEX = 'globex-key-0123456789';
const INITECH = 'initech-key-0123456789';
/** Characters of `input` a run list keeps (docs: GET /v1/runs returns summaries). */
const SUMMARY_LIMIT = 200;
/** providers.openai.timeoutMs of the main server; the "slow" first turn answers well after it. */
const MODEL_TIMEOUT_MS = 2500;

type Served = StartedProcess & { url: string };
type ErrorBody = { error: { code: string; message: string } };
type Summary = Record<string, unknown> & { id: string };

const promptOf = (request: RecordedRequest): string =>
  (request.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')?.content ?? '';

/** The model answers by the prompt, so every run gets its own behaviour. */
function modelFor(request: RecordedRequest): MockResponse {
  const prompt = promptOf(request);
  const turn = (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
  const failure = /^fail-(\d{3})/.exec(prompt);
  if (failure !== null) return { status: Number(failure[1]) };
  if (prompt.startsWith('slow')) return { delayMs: MODEL_TIMEOUT_MS + 3000, then: { text: 'too late' } };
  if (prompt.startsWith('order') && turn === 0) {
    return {
      toolCalls: [
        {
          id: 'po1',
          name: 'placeOrder',
          arguments: '{"userId":"bob","side":"BUY","price":90,"qty":1,"symbol":"DE-BASE-D+1"}',
        },
      ],
    };
  }
  if (prompt.startsWith('market') && turn === 0)
    return { text: 'Checking.', toolCalls: [{ id: 'mm1', name: 'getMarketMetrics', arguments: '{}' }] };
  return { text: turn === 0 ? 'short answer' : 'done' };
}

describe('hardening e2e (toolgate serve)', { timeout: 60_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  /** No API keys (callers have no tenant), tenants "*" denies placeOrder, `models:` patterns and one scripted file. */
  let open: Served | undefined;
  /** API keys: acme narrows the model list, globex does not, initech's patterns are wider than the server's. */
  let keyed: Served | undefined;
  /** An MCP server that cannot start; no `models:` list. */
  let broken: Served | undefined;

  const url = (server: Served | undefined): string => {
    assert.ok(server !== undefined, 'server started');
    return server.url;
  };
  const call = (
    server: Served | undefined,
    path: string,
    init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${url(server)}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        'content-type': 'application/json',
        ...(init.key === undefined ? {} : { authorization: `Bearer ${init.key}` }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
  const waitFor = async (server: Served | undefined, id: string, statuses: string[], key?: string): Promise<Run> => {
    for (let i = 0; i < 200; i++) {
      const run = await json<Run>(await call(server, `/v1/runs/${id}`, key === undefined ? {} : { key }));
      if (statuses.includes(run.status)) return run;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`run ${id} did not reach ${statuses.join('|')}`);
  };
  const log = async (id: string): Promise<RunEvent[]> =>
    (await json<{ events: RunEvent[] }>(await call(open, `/v1/runs/${id}/events?format=json`))).events;
  const listModels = async (server: Served | undefined, key?: string): Promise<string[]> =>
    (
      await json<{ runs: Summary[] }>(
        await call(server, '/v1/runs?fields=model&limit=200', key === undefined ? {} : { key }),
      )
    ).runs.map((r) => String(r.model));

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-hardening-'));
    const openai = { baseUrl: mock.url, apiKey: 'test', maxRetries: 0 };
    const configs: Record<string, ToolgateConfig> = {
      open: {
        model: 'openai:mock',
        models: ['openai:gpt-4o-mini*', 'scripted:./script-a.json'],
        providers: { openai: { ...openai, timeoutMs: MODEL_TIMEOUT_MS } },
        servers: { 'power-exchange': { command: process.execPath, args: [POWER_EXCHANGE_SERVER] } },
        tenants: { '*': { deny: ['power-exchange/placeOrder'] } },
        server: { store: 'memory:' },
      },
      keyed: {
        model: 'openai:mock',
        models: ['openai:gpt-4o*'],
        providers: { openai },
        tenants: {
          acme: { apiKeys: [ACME], models: ['openai:gpt-4o-mini'] },
          globex: { apiKeys: [GLOBEX] },
          initech: { apiKeys: [INITECH], models: ['openai:*'] },
        },
        server: { store: 'memory:' },
      },
      broken: {
        model: 'openai:mock',
        providers: { openai },
        servers: { broken: { command: process.execPath, args: ['missing-file.js'] } },
        server: { store: 'memory:' },
      },
    };
    for (const [name, config] of Object.entries(configs)) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'toolgate.json'), JSON.stringify(config, null, 2));
    }
    // Two valid scripts: only script-a is listed, so script-b must be refused although it would load.
    writeFileSync(join(dir, 'open', 'script-a.json'), JSON.stringify({ turns: [{ text: 'scripted hello' }] }));
    writeFileSync(join(dir, 'open', 'script-b.json'), JSON.stringify({ turns: [{ text: 'scripted b' }] }));
    const started = await Promise.allSettled([
      startServe({ cwd: join(dir, 'open') }).then((s) => (open = s)),
      startServe({ cwd: join(dir, 'keyed') }).then((s) => (keyed = s)),
      startServe({ cwd: join(dir, 'broken') }).then((s) => (broken = s)),
    ]);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
  });
  after(async () => {
    await Promise.all([open?.stop(), keyed?.stop(), broken?.stop()]);
    await mock?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('a model outside `models:` is 400 model_not_allowed naming the allowed ones, and no run is created', async () => {
    const refused = await call(open, '/v1/runs', { body: { input: 'hi', model: 'openai:gpt-4o' } });
    assert.equal(refused.status, 400);
    const { error } = await json<ErrorBody>(refused);
    assert.equal(error.code, 'model_not_allowed');
    assert.match(error.message, /model "openai:gpt-4o" is not allowed here; allowed: /);
    for (const allowed of ['openai:mock', 'openai:gpt-4o-mini*', 'scripted:./script-a.json'])
      assert.ok(error.message.includes(allowed), `${allowed} in: ${error.message}`);
    // Control: what the patterns cover is accepted.
    const matched = await call(open, '/v1/runs', { body: { input: 'hi', model: 'openai:gpt-4o-mini-2024-07-18' } });
    assert.equal(matched.status, 201, await matched.clone().text());
    assert.equal((await json<Run>(matched)).model, 'openai:gpt-4o-mini-2024-07-18');
    assert.equal((await listModels(open)).includes('openai:gpt-4o'), false, 'the refused request left no run behind');
  });

  it('a hostile model id gets the same 400 whatever it names: no file is read or echoed, no run exists', async () => {
    const hostile = [
      'scripted:/etc/passwd',
      'scripted:/proc/self/environ',
      'scripted:/etc/shadow',
      'scripted:/dev/null',
      'scripted:/no/such/dir/script.json',
      `scripted:${'../'.repeat(30)}etc/passwd`,
      'scripted:./script-b.json',
      'scripted:script-a.json',
      `scripted:${join(dir, 'open', 'script-a.json')}`,
      'scripted:./*.json',
      'openai:gpt-4o',
      'evil:thing',
    ];
    const answers = await Promise.all(
      hostile.map(async (model) => {
        const response = await call(open, '/v1/runs', { body: { input: 'hi', model } });
        return {
          model,
          status: response.status,
          type: response.headers.get('content-type') ?? '',
          text: await response.text(),
        };
      }),
    );
    const tails = new Set<string>();
    for (const { model, status, type, text } of answers) {
      assert.equal(status, 400, `${model}: ${text}`);
      assert.match(type, /^application\/json/);
      const body = JSON.parse(text) as ErrorBody;
      assert.deepEqual(Object.keys(body), ['error']);
      assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message']);
      assert.equal(body.error.code, 'model_not_allowed', `${model}: ${text}`);
      for (const leak of [
        'root:',
        'PATH=',
        'HOME=',
        'ENOENT',
        'EACCES',
        'not valid JSON',
        'cannot read',
        'turns',
        'scripted b',
      ]) {
        assert.equal(text.includes(leak), false, `${model}: the answer contains "${leak}": ${text}`);
      }
      assert.ok(text.length < 400, `${model}: a short answer, got ${text.length} characters`);
      tails.add(body.error.message.slice(body.error.message.indexOf(' is not allowed here;')));
    }
    assert.equal(tails.size, 1, `one answer whatever the id holds: ${[...tails].join(' | ')}`);
    const models = await listModels(open);
    assert.deepEqual(
      models.filter((m) => m.startsWith('scripted:') || m === 'openai:gpt-4o' || m === 'evil:thing'),
      [],
    );
    // Control: the scripted file listed exactly, as listed, runs from the server's directory.
    const listed = await call(open, '/v1/runs', { body: { input: 'hi', model: 'scripted:./script-a.json' } });
    assert.equal(listed.status, 201, await listed.clone().text());
    const done = await waitFor(open, (await json<Run>(listed)).id, ['completed', 'failed']);
    assert.equal(done.output, 'scripted hello');
  });

  it(
    'OOM attempt: 8 concurrent runs on scripted:/dev/zero ' + 'are all refused fast; the server stays up and healthy',
    async () => {
      const child = open?.child;
      assert.ok(child?.pid !== undefined);
      const rss = (): number | undefined => {
        const status = `/proc/${child.pid}/status`;
        if (!existsSync(status)) return undefined;
        const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1];
        return kb === undefined ? undefined : Number(kb) * 1024;
      };
      const before = rss();
      const started = Date.now();
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          fetch(`${url(open)}/v1/runs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ input: 'zero', model: 'scripted:/dev/zero' }),
            signal: AbortSignal.timeout(10_000),
          }),
        ),
      );
      const elapsed = Date.now() - started;
      for (const response of responses) {
        assert.equal(response.status, 400);
        assert.equal((await json<ErrorBody>(response)).error.code, 'model_not_allowed');
      }
      assert.ok(elapsed < 5000, `answered in ${elapsed} ms`);
      assert.equal((await fetch(`${url(open)}/healthz`)).status, 200);
      assert.equal(child.exitCode, null, 'the server process has not exited');
      assert.equal(child.signalCode, null);
      const after = rss();
      if (before !== undefined && after !== undefined)
        assert.ok(after - before < 200 * 1024 * 1024, `resident memory grew by ${after - before} bytes`);
    },
  );

  it('a config may not list scripted models with *: serve exits 2 and says why', async () => {
    const config = join(dir, 'glob.json');
    writeFileSync(
      config,
      JSON.stringify({ model: 'openai:mock', models: ['scripted:./*.json'], server: { store: 'memory:' } }),
    );
    const result = await runCli(['serve', '--port', '0', '--config', config], { cwd: dir, timeoutMs: 15_000 });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /scripted models are files on the server: name each one exactly/);
    assert.doesNotMatch(result.stdout, /serving on/);
  });

  it('tenants.<id>.models narrows `models:` for that tenant only', async () => {
    const refused = await call(keyed, '/v1/runs', { key: ACME, body: { input: 'hi', model: 'openai:gpt-4o' } });
    assert.equal(refused.status, 400);
    const { error } = await json<ErrorBody>(refused);
    assert.equal(error.code, 'model_not_allowed');
    assert.match(error.message, /allowed: openai:mock, openai:gpt-4o-mini$/);
    const outside = await call(keyed, '/v1/runs', { key: GLOBEX, body: { input: 'hi', model: 'openai:o3' } });
    assert.equal(outside.status, 400);
    assert.match((await json<ErrorBody>(outside)).error.message, /allowed: openai:mock, openai:gpt-4o\*$/);
    // Controls: acme's own list, and globex (no list of its own) under the server-wide patterns.
    assert.equal(
      (await call(keyed, '/v1/runs', { key: ACME, body: { input: 'hi', model: 'openai:gpt-4o-mini' } })).status,
      201,
    );
    assert.equal(
      (await call(keyed, '/v1/runs', { key: GLOBEX, body: { input: 'hi', model: 'openai:gpt-4o' } })).status,
      201,
    );
    assert.deepEqual(
      (await listModels(keyed, ACME)).filter((m) => m === 'openai:gpt-4o'),
      [],
      'acme has no run on the refused model',
    );
  });

  it(
    'the refusal names every model the tenant may use, ' + "also where its patterns are wider than the server's",
    async () => {
      // initech may use openai:* narrowed by the server's openai:gpt-4o*: what it can use is openai:gpt-4o*.
      // Fails at the time of writing: listed() in src/gate/is-model-allowed.ts keeps only tenant patterns a
      // server pattern covers, never server patterns a tenant pattern covers, so the answer says "allowed:
      // openai:mock".
      assert.equal(
        (await call(keyed, '/v1/runs', { key: INITECH, body: { input: 'hi', model: 'openai:gpt-4o' } })).status,
        201,
      );
      const refused = await call(keyed, '/v1/runs', { key: INITECH, body: { input: 'hi', model: 'openai:o3' } });
      assert.equal(refused.status, 400);
      const { error } = await json<ErrorBody>(refused);
      assert.equal(error.code, 'model_not_allowed');
      assert.ok(
        error.message.includes('openai:gpt-4o'),
        `the answer names the usable openai:gpt-4o* models: ${error.message}`,
      );
    },
  );

  it('?stream=true with a forbidden model answers 400 JSON before any SSE byte', async () => {
    // Models that would resolve and stream (a real provider id, a valid script file), and one that names a file.
    for (const model of ['openai:gpt-4o', 'scripted:./script-b.json', 'scripted:/etc/passwd']) {
      const response = await fetch(`${url(open)}/v1/runs?stream=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'hi', model }),
      });
      const text = await response.text();
      assert.equal(response.status, 400, `${model}: ${text.slice(0, 300)}`);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.doesNotMatch(text, /^(event|data|id):/m, 'no SSE framing');
      assert.equal((JSON.parse(text) as ErrorBody).error.code, 'model_not_allowed', `${model}: ${text}`);
    }
  });

  it(
    '?wait=first-turn: a failing first model turn is an ' + "HTTP error with the model error's status, stream or not",
    async () => {
      const cases = [
        { input: 'fail-401', query: 'wait=first-turn', status: 401, code: 'model_auth' },
        { input: 'fail-401 streamed', query: 'stream=true&wait=first-turn', status: 401, code: 'model_auth' },
        { input: 'fail-429', query: 'wait=first-turn', status: 429, code: 'model_rate_limited' },
        { input: 'fail-429 streamed', query: 'stream=true&wait=first-turn', status: 429, code: 'model_rate_limited' },
        { input: 'fail-500', query: 'wait=first-turn', status: 502, code: 'model_unavailable' },
        { input: 'fail-502', query: 'stream=true&wait=first-turn', status: 502, code: 'model_unavailable' },
        { input: 'slow', query: 'wait=first-turn', status: 504, code: 'model_timeout' },
      ];
      await Promise.all(
        cases.map(async ({ input, query, status, code }) => {
          const response = await call(open, `/v1/runs?${query}`, { body: { input } });
          const text = await response.text();
          assert.equal(response.status, status, `${input} (${query}): ${text}`);
          assert.match(response.headers.get('content-type') ?? '', /^application\/json/, `${input}: JSON, not SSE`);
          const { error } = JSON.parse(text) as ErrorBody;
          assert.equal(error.code, code, `${input}: ${text}`);
          assert.match(error.message, /failed in its first model turn/);
          // The run exists (it failed): the answer says where it is.
          const location = response.headers.get('location') ?? '';
          assert.match(location, /^\/v1\/runs\/[^/]+$/);
          const run = await json<Run>(await call(open, location));
          assert.equal(run.status, 'failed');
          assert.equal(run.error?.code, code);
        }),
      );
    },
  );

  it(
    '?wait=first-turn: a good first turn answers 201 past that ' +
      'turn, or the SSE stream from event 1; wait=other is 400',
    async () => {
      const response = await call(open, '/v1/runs?wait=first-turn', { body: { input: 'market now' } });
      assert.equal(response.status, 201, await response.clone().text());
      const run = await json<Run>(response);
      assert.notEqual(run.status, 'queued');
      const firstTurn = ofType(await log(run.id), 'assistant_message')[0];
      assert.ok(
        firstTurn !== undefined && firstTurn.id <= run.lastEventId,
        `the answer (lastEventId ${run.lastEventId}) came after the first turn (${firstTurn?.id})`,
      );

      const messages = await collectSse(`${url(open)}/v1/runs?stream=true&wait=first-turn`, {
        method: 'POST',
        body: JSON.stringify({ input: 'market streamed' }),
        headers: { 'content-type': 'application/json' },
      });
      const events = messages.map((m) => JSON.parse(m.data) as RunEvent);
      assert.equal(events[0]?.id, 1);
      assert.equal(events.at(-1)?.type, 'run_completed');
      assert.deepEqual(events, await log(events[0]?.runId ?? ''));

      const other = await call(open, '/v1/runs?wait=other', { body: { input: 'hi' } });
      assert.equal(other.status, 400);
      const { error } = await json<ErrorBody>(other);
      assert.equal(error.code, 'usage');
      assert.match(error.message, /wait must be "first-turn"/);
    },
  );

  it(
    'tenants "*" binds callers without a tenant: placeOrder ' +
      'is not listed, not offered, and a call to it is denied',
    async () => {
      const tools = (await json<{ tools: { name: string }[] }>(await call(open, '/v1/tools'))).tools.map((t) => t.name);
      assert.equal(tools.includes('placeOrder'), false, tools.join(', '));
      assert.ok(tools.includes('getMarketMetrics'), 'the other tools are still there');

      const created = await json<Run>(await call(open, '/v1/runs', { body: { input: 'order now' } }));
      const run = await waitFor(open, created.id, ['completed', 'failed', 'waiting_approval']);
      assert.equal(run.status, 'completed', JSON.stringify(run.pendingApproval ?? run.error));
      const events = await log(run.id);
      assert.deepEqual(
        ofType(events, 'gate_decision').map((e) => [e.data.name, e.data.decision]),
        [['placeOrder', 'denied']],
      );
      assert.equal(ofType(events, 'tool_result')[0]?.data.error?.code, 'denied');
      assert.equal(ofType(events, 'tool_call').length, 0, 'never sent to the exchange');
      const first = mock.requests.find((r) => promptOf(r) === 'order now');
      const offered = ((first?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map(
        (t) => t.function.name,
      );
      assert.ok(offered.length > 0);
      assert.equal(offered.includes('placeOrder'), false, offered.join(', '));
    },
  );

  it('an API key listed twice stops serve with exit code 2 naming the tenants, never the key', async () => {
    const key = 'dup-key-secret-0123456789';
    const write = (name: string, tenants: ToolgateConfig['tenants']): string => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify({ model: 'openai:mock', tenants, server: { store: 'memory:' } }));
      return file;
    };
    const [across, twice] = await Promise.all([
      runCli(
        [
          'serve',
          '--port',
          '0',
          '--config',
          write('dup-across.json', { acme: { apiKeys: [key] }, globex: { apiKeys: [{ key, userId: 'svc' }] } }),
        ],
        { cwd: dir, timeoutMs: 15_000 },
      ),
      runCli(
        [
          'serve',
          '--port',
          '0',
          '--config',
          write('dup-twice.json', { acme: { apiKeys: [key, 'other-key-0123456789', key] } }),
        ],
        { cwd: dir, timeoutMs: 15_000 },
      ),
    ]);
    assert.equal(across.code, 2, across.stderr);
    assert.match(across.stderr, /under both tenants\.acme\.apiKeys and tenants\.globex\.apiKeys/);
    assert.equal(twice.code, 2, twice.stderr);
    assert.match(twice.stderr, /twice under tenants\.acme\.apiKeys/);
    for (const result of [across, twice]) {
      assert.equal(`${result.stdout}${result.stderr}`.includes(key), false, 'the key is never printed whole');
      assert.doesNotMatch(result.stdout, /serving on/);
    }
  });

  it('context: secret-looking keys are redacted in every answer, other values kept', async () => {
    const context = { apiToken: 's3cret', account: 'A-1', nested: { password: 'hunter2', region: 'DE' } };
    const shown = { apiToken: REDACTED, account: 'A-1', nested: { password: REDACTED, region: 'DE' } };
    const body = { input: 'with context', context };
    const created = await call(open, '/v1/runs', { body, headers: { 'idempotency-key': 'ctx-1' } });
    assert.equal(created.status, 201);
    const createdText = await created.text();
    const run = JSON.parse(createdText) as Run;
    assert.deepEqual(run.context, shown);
    const replay = await call(open, '/v1/runs', { body, headers: { 'idempotency-key': 'ctx-1' } });
    assert.equal(replay.status, 200);
    const waited = await call(open, '/v1/runs?wait=first-turn', { body: { input: 'with context, waited', context } });
    assert.equal(waited.status, 201);
    const one = await call(open, `/v1/runs/${run.id}`);
    const list = await call(open, '/v1/runs?limit=200');
    const texts = [createdText, await replay.text(), await waited.text(), await one.text(), await list.text()];
    for (const text of texts) {
      assert.equal(text.includes('s3cret'), false, text.slice(0, 300));
      assert.equal(text.includes('hunter2'), false, text.slice(0, 300));
    }
    assert.deepEqual((JSON.parse(texts[1] ?? '{}') as Run).context, shown);
    assert.deepEqual((JSON.parse(texts[2] ?? '{}') as Run).context, shown);
    assert.deepEqual((JSON.parse(texts[3] ?? '{}') as Run).context, shown);
    const entry = (JSON.parse(texts[4] ?? '{}') as { runs: Summary[] }).runs.find((r) => r.id === run.id);
    assert.ok(entry !== undefined);
    assert.equal('context' in entry, false, 'a list never carries context');
  });

  it(
    'GET /v1/runs returns summaries: long input cut and named ' +
      'in truncated, fields= picks, metadata only on request',
    async () => {
      const input = `big ${'x'.repeat(50_000)}`;
      const metadata = { tag: 'm-1', blob: 'y'.repeat(2000) };
      const created = await json<Run>(await call(open, '/v1/runs', { body: { input, metadata } }));
      await waitFor(open, created.id, ['completed']);

      const listResponse = await call(open, '/v1/runs?limit=200');
      const listText = await listResponse.text();
      const runs = (JSON.parse(listText) as { runs: Summary[] }).runs;
      const entry = runs.find((r) => r.id === created.id);
      assert.ok(entry !== undefined);
      assert.equal(
        typeof entry.input === 'string' ? entry.input.length : -1,
        SUMMARY_LIMIT + 1,
        'input cut to 200 characters and "…"',
      );
      assert.equal(entry.input, `${input.slice(0, SUMMARY_LIMIT)}…`);
      assert.deepEqual(entry.truncated, ['input']);
      assert.equal(entry.output, 'short answer');
      assert.equal('metadata' in entry, false);
      assert.ok(
        runs.every((r) => !('metadata' in r)),
        'no metadata unless asked for',
      );
      assert.ok(listText.length < 40_000, `the page stays small: ${listText.length} characters`);

      const whole = await json<Run>(await call(open, `/v1/runs/${created.id}`));
      assert.equal(whole.input.length, input.length, 'GET /v1/runs/{id} has it whole');
      assert.ok(whole.input === input);
      assert.deepEqual(whole.metadata, metadata);

      const picked = (await json<{ runs: Summary[] }>(await call(open, '/v1/runs?fields=status,input&limit=200'))).runs;
      assert.ok(picked.length >= 2);
      for (const r of picked) {
        const keys = Object.keys(r).sort();
        assert.deepEqual(
          keys,
          r.id === created.id ? ['id', 'input', 'status', 'truncated'] : ['id', 'input', 'status'],
          JSON.stringify(r).slice(0, 200),
        );
      }
      const withMetadata = (
        await json<{ runs: Summary[] }>(await call(open, '/v1/runs?fields=metadata&limit=200'))
      ).runs.find((r) => r.id === created.id);
      assert.deepEqual(withMetadata, { id: created.id, metadata });

      for (const fields of ['nope', 'status,nope', 'context']) {
        const bad = await call(open, `/v1/runs?fields=${fields}`);
        assert.equal(bad.status, 400, fields);
        const { error } = await json<ErrorBody>(bad);
        assert.equal(error.code, 'usage');
        assert.match(error.message, /^fields must be a comma-separated list of /);
      }
    },
  );

  it(
    'an MCP server that cannot start: 503 tool_unavailable before ' +
      'any run exists; without `models:` only the default model',
    async () => {
      const response = await call(broken, '/v1/runs', { body: { input: 'hi' } });
      const text = await response.text();
      assert.equal(response.status, 503, text);
      const { error } = JSON.parse(text) as ErrorBody;
      assert.equal(error.code, 'tool_unavailable');
      assert.match(error.message, /MCP server "broken"/);
      const streamed = await call(broken, '/v1/runs?stream=true', { body: { input: 'hi' } });
      assert.equal(streamed.status, 503);
      assert.match(streamed.headers.get('content-type') ?? '', /^application\/json/);
      await streamed.arrayBuffer();
      assert.deepEqual((await json<{ runs: Run[] }>(await call(broken, '/v1/runs'))).runs, [], 'no run was created');

      const other = await call(broken, '/v1/runs', { body: { input: 'hi', model: 'openai:gpt-4o-mini' } });
      assert.equal(other.status, 400);
      const refused = await json<ErrorBody>(other);
      assert.equal(refused.error.code, 'model_not_allowed');
      assert.equal(refused.error.message, 'model "openai:gpt-4o-mini" is not allowed here; allowed: openai:mock');
    },
  );
});
