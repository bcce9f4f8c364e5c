// `toolgate run` records its runs and `toolgate runs` comes back to them, in new
// processes: the real CLI, the power-exchange example (its state file shows which
// orders really ran), the mock model, a SQLite store in a temporary TOOLGATE_HOME,
// and a real `toolgate serve` for the same commands over HTTP.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, freePort, runCli, startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-key-0123456789';
const NODE = JSON.stringify(process.execPath);

/**
 * "order 41.5 …" bids 1 MWh for bob at that price, then repeats what the tool said; "slow …" reads the (slow) book;
 * anything else reads the metrics.
 */
function model(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  if (messages.some((m) => m.role === 'tool'))
    return { text: `Told: ${messages.findLast((m) => m.role === 'tool')?.content ?? ''}` };
  const price = /^order (\d+(\.\d+)?)/.exec(prompt)?.[1];
  if (price !== undefined)
    return {
      toolCalls: [
        {
          id: 'o1',
          name: 'placeOrder',
          arguments: `{"userId":"bob","side":"BUY","price":${price},"qty":1,"symbol":"DE-BASE-D+1"}`,
        },
      ],
    };
  return {
    toolCalls: [{ id: 'r1', name: prompt.startsWith('slow') ? 'getOrderBook' : 'getMarketMetrics', arguments: '{}' }],
  };
}

const runIdIn = (text: string): string =>
  /toolgate runs approve (run_\w+)/.exec(text)?.[1] ??
  /· (run_\w+)\n/.exec(text)?.[1] ??
  assert.fail(`no run id in:\n${text}`);
const jsonLines = (text: string): RunEvent[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RunEvent);

describe('toolgate runs: runs you can come back to', () => {
  let mock: MockOpenAI;
  let dir: string;
  let home: string;
  const cli = (args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) =>
    runCli(args, {
      env: { TOOLGATE_HOME: home, TOOLGATE_URL: '', TOOLGATE_API_KEY: '', ...options.env },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
  const exchange = (state: string, ...extra: string[]) =>
    (
      `${NODE} ${JSON.stringify(POWER_EXCHANGE_SERVER)} --state ` +
      `${JSON.stringify(join(dir, state))} ${extra.join(' ')}`
    ).trim();
  const run = (prompt: string, ...flags: string[]) =>
    cli(['run', prompt, '--model', 'openai:mock', '--base-url', mock.url, ...flags]);
  /** Bob's orders at this price in a venue state file (0 when the venue never saved: nothing was written). */
  const ordersAt = (state: string, price: number): number => {
    const file = join(dir, state);
    if (!existsSync(file)) return 0;
    const venue = JSON.parse(readFileSync(file, 'utf8')) as {
      exchange: { orders: { userId: string; priceCents: number }[] };
    };
    return venue.exchange.orders.filter((o) => o.userId === 'bob' && o.priceCents === Math.round(price * 100)).length;
  };
  const storedEvents = async (path: string, runId: string): Promise<RunEvent[]> => {
    const store = await openSqliteRunStore({ path });
    try {
      return await store.readEvents(runId);
    } finally {
      await store.close();
    }
  };

  before(async () => {
    mock = await startMockOpenAI({ handler: model });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-runs-'));
    home = join(dir, 'home');
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records a run by default in a private store in TOOLGATE_HOME; another process lists and shows it', async () => {
    const done = await run('how is the market?', '--mcp', exchange('s0.json'));
    assert.equal(done.code, 0, done.stderr);
    const id = runIdIn(done.stderr);
    assert.equal(statSync(home).mode & 0o777, 0o700);
    assert.equal(statSync(join(home, 'runs.db')).mode & 0o777, 0o600);
    const list = await cli(['runs', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      new RegExp(`^${id} +completed +\\d{4}-\\d\\d-\\d\\d \\S+ +2 +openai:mock +how is the market\\?$`, 'm'),
    );
    const show = await cli(['runs', 'show', id]);
    assert.match(show.stdout, /status +completed/);
    assert.match(show.stdout, /answer +Told: /);
    const json = JSON.parse((await cli(['runs', 'show', id, '--json'])).stdout) as Run;
    assert.equal(json.id, id);
    assert.equal(json.status, 'completed');
  });

  it('--store memory: records nothing', async () => {
    const elsewhere = join(dir, 'home-memory');
    const ran = await cli(
      [
        'run',
        'market?',
        '--model',
        'openai:mock',
        '--base-url',
        mock.url,
        '--mcp',
        exchange('s0.json'),
        '--store',
        'memory:',
      ],
      { env: { TOOLGATE_HOME: elsewhere } },
    );
    assert.equal(ran.code, 0, ran.stderr);
    const list = await cli(['runs', 'list'], { env: { TOOLGATE_HOME: elsewhere } });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stderr, /^no runs in the store/);
    assert.equal(existsSync(elsewhere), false, 'neither the folder nor the file was created');
  });

  it(
    'a run that exits 3 is approved by `toolgate runs approve` ' +
      'in a new process: the order runs once and the run completes',
    async () => {
      const waiting = await run('order 41.5', '--mcp', exchange('s1.json'), '--api-key', 'model-key');
      assert.equal(waiting.code, 3, waiting.stderr);
      const id = runIdIn(waiting.stderr);
      assert.match(
        waiting.stderr,
        new RegExp(`^ {4}toolgate runs approve ${id}$`, 'm'),
        'the exact command, nothing to add for the default store',
      );
      assert.match(waiting.stderr, new RegExp(`^ {4}toolgate runs reject ${id} --reason "…"$`, 'm'));
      assert.equal(ordersAt('s1.json', 41.5), 0);

      // The run had a model API key; keys are not recorded, and without one nothing is decided.
      const noKey = await cli(['runs', 'approve', id], { cwd: tmpdir() });
      assert.equal(noKey.code, 2, noKey.stderr);
      assert.match(
        noKey.stderr,
        new RegExp(
          String.raw`started with an API key for its model \(openai:mock\), a` +
            String.raw`nd none is set here.*OPENAI_API_KEY.*Nothing was recorded`,
          's',
        ),
      );
      assert.match((await cli(['runs', 'show', id])).stdout, /status +waiting_approval/);

      const approved = await cli(['runs', 'approve', id], { cwd: tmpdir(), env: { OPENAI_API_KEY: 'model-key' } });
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stderr, /reopening the tools run run_\w+ was started with: --mcp/);
      assert.match(
        approved.stderr,
        /⏸ placeOrder \(write\) waits for approval[\s\S]*decision on placeOrder: approve \(by cli\)\n→ placeOrder\(/,
      );
      assert.match(approved.stderr, /✓ completed · 2 steps/);
      assert.match(approved.stdout, /Told: Order ord-\d+ accepted/);
      assert.equal(mock.requests.at(-1)?.headers.authorization, 'Bearer model-key');
      assert.equal(ordersAt('s1.json', 41.5), 1, 'the venue has the order exactly once');
      const events = await storedEvents(join(home, 'runs.db'), id);
      assert.equal(events.filter((e) => e.type === 'tool_call').length, 1);
      assert.equal(events.at(-1)?.type, 'run_completed');

      const again = await cli(['runs', 'approve', id]);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /is not waiting for an approval \(it is completed\)/);
    },
  );

  it(
    'reject with a reason: nothing is executed, the model ' +
      'is told why; an explicit --store is repeated in the hint',
    async () => {
      const db = join(dir, 'explicit.db');
      const waiting = await run('order 42.5', '--mcp', exchange('s2.json'), '--store', `sqlite:${db}`);
      assert.equal(waiting.code, 3, waiting.stderr);
      const id = runIdIn(waiting.stderr);
      assert.match(
        waiting.stderr,
        new RegExp(`toolgate runs approve ${id} --store sqlite:${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`),
      );
      const rejected = await cli(['runs', 'reject', id, '--reason', 'limit is 5 MWh', '--store', `sqlite:${db}`]);
      assert.equal(rejected.code, 0, rejected.stderr);
      assert.match(rejected.stderr, /← placeOrder rejected: .*limit is 5 MWh/);
      assert.match(rejected.stdout, /Told: .*limit is 5 MWh/);
      const told = mock.requests.at(-1)?.body.messages as { role: string; content: string }[];
      assert.match(told.findLast((m) => m.role === 'tool')?.content ?? '', /limit is 5 MWh/);
      assert.equal(ordersAt('s2.json', 42.5), 0);
    },
  );

  it(
    'an order whose outcome is unknown: exit 3 suggests ' + 'mark-done; mark-done records it without sending it again',
    async () => {
      writeFileSync(
        join(dir, 'slow.yaml'),
        `servers:\n  power-exchange:\n    command: ${NODE}\n    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, ` +
          (`--state, ${JSON.stringify(join(dir, 's3.json'))}, --delay, placeOrder=1500]\ntools:\n ` +
            ` power-exchange/placeOrder: { timeoutMs: 300, approval: never }\n`),
      );
      const waiting = await run('order 43.5', '--config', join(dir, 'slow.yaml'), '--yes');
      assert.equal(waiting.code, 3, waiting.stderr);
      const id = runIdIn(waiting.stderr);
      assert.match(waiting.stderr, new RegExp(`toolgate runs mark-done ${id} --result "what you saw" +# it happened`));
      const before = ordersAt('s3.json', 43.5);
      const done = await cli(['runs', 'mark-done', id, '--result', 'order on the book']);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stderr, /reopening the tools .* --config \S+slow\.yaml/);
      assert.match(done.stderr, /decision on placeOrder: mark_done/);
      assert.match(done.stdout, /Told: .*order on the book/);
      assert.equal(ordersAt('s3.json', 43.5), before, 'not sent again');
      const events = await storedEvents(join(home, 'runs.db'), id);
      assert.equal(events.filter((e) => e.type === 'tool_call').length, 1);
      assert.equal(events.find((e) => e.type === 'tool_result' && e.data.markedDone === true)?.type, 'tool_result');
    },
  );

  it(
    'cancel ends a waiting run with the reason recorded; ' + 'runs events --json prints the stored events exactly',
    async () => {
      const id = runIdIn((await run('order 44.5', '--mcp', exchange('s4.json'))).stderr);
      const cancelled = await cli(['runs', 'cancel', id, '--reason', 'wrong account']);
      assert.equal(cancelled.code, 0, cancelled.stderr);
      assert.match(cancelled.stderr, new RegExp(`✗ run ${id} cancelled`));
      const printed = await cli(['runs', 'events', id, '--json']);
      assert.equal(printed.code, 0, printed.stderr);
      const stored = await storedEvents(join(home, 'runs.db'), id);
      assert.deepEqual(
        printed.stdout.trim().split('\n'),
        stored.map((e) => JSON.stringify(e)),
      );
      assert.equal(stored.find((e) => e.type === 'cancel_requested')?.data.reason, 'wrong account');
      assert.equal(stored.at(-1)?.type, 'run_cancelled');
      const later = await cli(['runs', 'events', id, '--json', '--after', '3']);
      assert.deepEqual(
        jsonLines(later.stdout).map((e) => e.id),
        stored.filter((e) => e.id > 3).map((e) => e.id),
      );
      const human = await cli(['runs', 'events', id]);
      assert.match(human.stderr, /⏸ placeOrder \(write\) waits for approval/);
      assert.match(human.stderr, /✗ run cancelled/);
      assert.equal((await cli(['runs', 'cancel', id])).code, 2, 'an ended run cannot be cancelled');
    },
  );

  it(
    '--status filters (repeatable), an unknown run id is ' + 'a clear exit 2, a store others can write starts nothing',
    async () => {
      const waiting = JSON.parse((await cli(['runs', 'list', '--status', 'waiting_approval', '--json'])).stdout) as {
        status: string;
      }[];
      assert.ok(waiting.length === 0 || waiting.every((r) => r.status === 'waiting_approval'));
      const ended = JSON.parse(
        (await cli(['runs', 'list', '--status', 'completed', '--status', 'cancelled', '--json'])).stdout,
      ) as { status: string }[];
      assert.deepEqual([...new Set(ended.map((r) => r.status))].sort(), ['cancelled', 'completed']);
      const bad = await cli(['runs', 'list', '--status', 'done']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--status done: use one of queued, running, waiting_approval/);

      const unknown = await cli(['runs', 'show', 'run_nope']);
      assert.equal(unknown.code, 2);
      assert.match(
        unknown.stderr,
        /^toolgate: run run_nope not found in the store sqlite:\S+runs\.db \(toolgate runs list shows the runs there\)/,
      );

      const db = join(dir, 'shared.db');
      const id = runIdIn((await run('order 45.5', '--mcp', exchange('s5.json'), '--store', `sqlite:${db}`)).stderr);
      chmodSync(db, 0o666);
      const refused = await cli(['runs', 'approve', id, '--store', `sqlite:${db}`]);
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr,
        new RegExp(
          String.raw`does not start the tool servers recorded in this store: the store ` +
            String.raw`file \S+shared\.db is writable by other users.*Nothing was recorded`,
          's',
        ),
      );
      const guessed = await cli(['runs', 'approve', id, '--store', `sqlite:${db}`, '--mcp', exchange('s5.json')]);
      assert.equal(guessed.code, 2, 'nor is the model API it names trusted: the conversation would go there');
      assert.match(
        guessed.stderr,
        /started with the model API at http:\S+, which this store cannot be trusted to say.*--base-url/s,
      );
      const chosen = await cli([
        'runs',
        'approve',
        id,
        '--store',
        `sqlite:${db}`,
        '--mcp',
        exchange('s5.json'),
        '--base-url',
        mock.url,
      ]);
      assert.equal(chosen.code, 0, chosen.stderr);
      assert.equal(ordersAt('s5.json', 45.5), 1);
    },
  );

  describe('on a toolgate server', () => {
    let server: StartedProcess & { url: string };
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      });
    const start = async (input: string): Promise<string> =>
      ((await (await api('/v1/runs', { method: 'POST', body: JSON.stringify({ input }) })).json()) as Run).id;
    const remote = (args: string[], key = KEY) =>
      cli([...args, '--url', server.url, ...(key === '' ? [] : ['--api-key', key])]);

    before(async () => {
      const serveDir = join(dir, 'serve');
      mkdirSync(serveDir);
      writeFileSync(
        join(serveDir, 'toolgate.yaml'),
        `model: openai:mock\nproviders:\n  openai: { baseUrl: "${mock.url}", maxRetries: 0 }\ntenants:\n ` +
          (` acme:\n    apiKeys: ["${KEY}"]\nservers:\n  power-exchange:\n    command: ${NODE}\n ` +
            `   args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, --delay, getOrderBook=1500]\n`),
      );
      server = await startServe({ cwd: serveDir });
    });
    after(() => server.stop());

    it(
      'list, show and approve (following the run until it ' +
        'completes); a wrong or missing key is a 401 said plainly',
      async () => {
        const id = await start('order 46.5');
        const waits = await remote(['runs', 'events', id, '--follow']);
        assert.equal(waits.code, 3, waits.stderr);
        assert.match(waits.stderr, new RegExp(`toolgate runs approve ${id} --url ${server.url}`));
        const list = await remote(['runs', 'list', '--status', 'waiting_approval']);
        assert.match(list.stdout, new RegExp(`^${id} +waiting_approval \\(placeOrder\\)`, 'm'));
        assert.match(
          (await remote(['runs', 'show', id])).stdout,
          /waits for approval: placeOrder \(write\)\n {2}why +the policy asks a person/,
        );
        const wrong = await remote(['runs', 'list'], 'not-the-key');
        assert.equal(wrong.code, 2);
        assert.match(wrong.stderr, /refused the API key .*it is wrong/);
        assert.match(
          (await remote(['runs', 'list'], '')).stderr,
          /needs an API key: pass --api-key or set TOOLGATE_API_KEY/,
        );
        const approved = await remote(['runs', 'approve', id]);
        assert.equal(approved.code, 0, approved.stderr);
        assert.match(approved.stderr, /decision on placeOrder: approve\n→ placeOrder\([\s\S]*✓ completed/);
        assert.match(approved.stdout, /Told: Order ord-\d+ accepted/);
        const fromEnv = await cli(['runs', 'show', id], { env: { TOOLGATE_URL: server.url, TOOLGATE_API_KEY: KEY } });
        assert.match(fromEnv.stdout, /status +completed/);
        assert.match(
          (await remote(['runs', 'show', 'run_nope'])).stderr,
          /run run_nope not found on the server at http/,
        );
      },
    );

    it('--follow prints the live events as stored, resuming by event id, until the run ends', async () => {
      const id = await start('slow book');
      const followed = await remote(['runs', 'events', id, '--follow', '--json']);
      assert.equal(followed.code, 0, followed.stderr);
      const stored = ((await (await api(`/v1/runs/${id}/events?format=json`)).json()) as { events: RunEvent[] }).events;
      assert.deepEqual(
        followed.stdout.trim().split('\n'),
        stored.map((e) => JSON.stringify(e)),
      );
      assert.equal(stored.at(-1)?.type, 'run_completed');
      const tail = await remote(['runs', 'events', id, '--follow', '--json', '--after', String(stored.length - 2)]);
      assert.deepEqual(
        jsonLines(tail.stdout).map((e) => e.id),
        [stored.length - 1, stored.length],
      );
    });

    it('cancel --reason reaches the server and is recorded', async () => {
      const id = await start('order 47.5');
      const waits = await remote(['runs', 'events', id, '--follow']);
      assert.equal(waits.code, 3, waits.stderr);
      const cancelled = await remote(['runs', 'cancel', id, '--reason', 'changed my mind']);
      assert.equal(cancelled.code, 0, cancelled.stderr);
      const stored = ((await (await api(`/v1/runs/${id}/events?format=json`)).json()) as { events: RunEvent[] }).events;
      const ended = stored.at(-1);
      assert.equal(ended?.type, 'run_cancelled');
      assert.equal((ended?.data as { reason?: string }).reason, 'changed my mind');
    });

    it('an unreachable server is a sentence naming the URL', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const down = await cli(['runs', 'list', '--url', url]);
      assert.equal(down.code, 1);
      assert.match(down.stderr, new RegExp(`cannot reach the toolgate server at ${url.replace(/\./g, '\\.')} `));
    });
  });
});
