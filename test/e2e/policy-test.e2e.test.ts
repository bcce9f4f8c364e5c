// `toolgate policy test` through the real binary: runs recorded on a SQLite store (the power-exchange MCP server,
// the mock model), kept as a JSONL export next to the suite, replayed under the configuration in CI mode. The
// venue's state file shows that a policy test never reaches the venue.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { JsonObject } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

const ORDER = { userId: 'bob', side: 'BUY', symbol: 'DE-BASE-D+1' };
/** 10 MWh at 50 EUR: 500 EUR. */
const SMALL = { ...ORDER, qty: 10, price: 50 };
/** 300 MWh at 50 EUR: 15,000 EUR, above the 10,000 a person must approve. */
const LARGE = { ...ORDER, qty: 300, price: 50 };

describe('toolgate policy test (real binary, recorded runs)', () => {
  let mock: MockOpenAI;
  let dir: string;
  let venue: string;
  const ids: Record<'small' | 'large', string> = { small: '', large: '' };

  const config = (tools: ToolgateConfig['tools']): ToolgateConfig => ({
    model: 'openai:m',
    providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
    servers: {
      'power-exchange': {
        command: process.execPath,
        args: [POWER_EXCHANGE_SERVER, '--state', venue, '--initial-cash', '1000000'],
      },
    },
    tools,
  });
  /** The policy the runs were recorded under: every power-exchange call runs. */
  const LOOSE: ToolgateConfig['tools'] = { 'power-exchange/*': { approval: 'never' } };
  /** The current policy: orders above 10,000 EUR wait for a person. */
  const CONDITIONAL: ToolgateConfig['tools'] = {
    ...LOOSE,
    'power-exchange/placeOrder': {
      approval: 'never',
      conditions: [{ when: 'args.qty * args.price > 10000', approval: 'required', reason: 'large order' }],
    },
  };

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(['policy', 'test', ...args], {
      cwd: dir,
      env: { TOOLGATE_HOME: join(dir, 'home'), TOOLGATE_URL: '', CI: 'true', ...env },
      timeoutMs: 60_000,
    });

  /** What the venue holds (its orders, trades, wallets, idempotency keys); the file is saved again at each start. */
  const venueState = (): unknown => {
    const state: { exchange: unknown; idempotency: { key: string }[] } = JSON.parse(readFileSync(venue, 'utf8'));
    return { exchange: state.exchange, keys: state.idempotency.map((k) => k.key).sort() };
  };

  function writeSuite(name: string, lines: string[]): string {
    const file = join(dir, name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-test-'));
    venue = join(dir, 'venue.json');
    const store = await openStore(`sqlite:${join(dir, 'runs.db')}`);
    const recorder = new Toolgate({ settings: resolveSettings(config(LOOSE), {}, {}), store });
    const order = (id: string, args: JsonObject) => ({
      toolCalls: [{ id, name: 'placeOrder', arguments: JSON.stringify(args) }],
    });
    mock.enqueue(order('o1', SMALL), { text: 'bought 10 MWh' });
    const small = await recorder.run({ input: 'buy 10 MWh at 50' });
    mock.enqueue(order('o2', LARGE), { text: 'bought 300 MWh' });
    const large = await recorder.run({ input: 'buy 300 MWh at 50' });
    assert.deepEqual([small.status, large.status], ['completed', 'completed'], JSON.stringify([small, large]));
    ids.small = small.id;
    ids.large = large.id;
    await recorder.close();
    // The suite keeps its runs as `toolgate runs export` writes them.
    mkdirSync(join(dir, 'runs'));
    const exported = await runCli(
      ['runs', 'export', small.id, large.id, '--out', 'runs/orders.jsonl', '--store', 'sqlite:runs.db'],
      { cwd: dir, env: { TOOLGATE_HOME: join(dir, 'home'), TOOLGATE_URL: '' } },
    );
    assert.equal(exported.code, 0, exported.stderr);
    writeFileSync(join(dir, 'toolgate.json'), JSON.stringify(config(CONDITIONAL)));
    writeFileSync(join(dir, 'loose.json'), JSON.stringify(config(LOOSE)));
    writeFileSync(
      join(dir, 'no-orders.json'),
      JSON.stringify({ tools: LOOSE, tenants: { '*': { deny: ['power-exchange/placeOrder'] } } }),
    );
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const LARGE_ORDERS_WAIT = [
    '  - tool: power-exchange/placeOrder',
    '    when: "args.qty * args.price > 10000"',
    '    decision: approval_required',
    '    name: orders above 10,000 need a person',
  ];

  it('passes under the current policy in CI mode: exit 0, plain text, the summary last; venue untouched', async () => {
    const suite = writeSuite('current.yaml', [
      'config: ./toolgate.json',
      'runs:',
      '  - file: ./runs/orders.jsonl',
      'expect:',
      '  - noNewDenials: true',
      ...LARGE_ORDERS_WAIT,
      '  - tenant: globex',
      '    never: "power-exchange/*"',
    ]);
    const before = venueState();
    const requests = mock.requests.length;
    const { code, stdout, stderr } = await cli([suite]);
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /: 2 runs replayed, 1 changed\n/);
    assert.match(stdout, /^✓ no new denials \(2 calls\)$/m);
    assert.match(stdout, /^✓ orders above 10,000 need a person \(1 call\)$/m);
    assert.match(stdout, /^✓ tenant globex never reaches power-exchange\/\* \(no call matched: it checks nothing\)$/m);
    assert.match(stdout, /\npolicy test: 3 passed, 0 failed\n$/);
    assert.ok(!stdout.includes('\u001b['), 'no colours under CI');
    assert.deepEqual(venueState(), before, 'the venue received nothing');
    assert.equal(mock.requests.length, requests, 'the model was not asked');
  });

  it('a policy that denies an order allowed before fails noNewDenials: exit 1, the run and call named', async () => {
    const suite = writeSuite('no-orders.yaml', [
      'config: ./loose.json',
      'policy: ./no-orders.json',
      'runs:',
      '  - file: ./runs/orders.jsonl',
      'expect:',
      '  - noNewDenials: true',
    ]);
    const before = venueState();
    const { code, stdout, stderr } = await cli([suite]);
    assert.equal(code, 1, `${stdout}\n${stderr}`);
    assert.match(stdout, /^✗ no new denials \(2 calls\)$/m);
    for (const [id, args] of [
      [ids.small, SMALL],
      [ids.large, LARGE],
    ] as const) {
      const line = stdout.split('\n').find((l) => l.startsWith(`    ${id} step 1 placeOrder `)) ?? '';
      assert.match(line, /: allowed before, denied now \(.*placeOrder.*\)$/, stdout);
      assert.ok(line.includes(`"qty":${args.qty}`), line);
    }
    assert.match(stdout, /\npolicy test: 0 passed, 1 failed\n$/);
    assert.deepEqual(venueState(), before, 'the venue received nothing');
  });

  it('"orders above 10,000 need a person" passes with the when: condition and fails without it', async () => {
    const lines = (configFile: string) => [
      `config: ${configFile}`,
      'runs:',
      '  - file: ./runs/orders.jsonl',
      'expect:',
      ...LARGE_ORDERS_WAIT,
    ];
    const strict = await cli([writeSuite('large-strict.yaml', lines('./toolgate.json'))]);
    assert.equal(strict.code, 0, `${strict.stdout}\n${strict.stderr}`);
    assert.match(strict.stdout, /\npolicy test: 1 passed, 0 failed\n$/);
    const loose = await cli([writeSuite('large-loose.yaml', lines('./loose.json'))]);
    assert.equal(loose.code, 1, `${loose.stdout}\n${loose.stderr}`);
    assert.match(loose.stdout, /^✗ orders above 10,000 need a person \(1 call\)$/m);
    assert.match(
      loose.stdout,
      new RegExp(`^ {4}${ids.large} step 1 placeOrder \\{.*"qty":300.*\\}: allowed, expected approval_required$`, 'm'),
    );
    assert.doesNotMatch(loose.stdout, new RegExp(ids.small), 'the small order is not concerned');
    assert.match(loose.stdout, /\npolicy test: 0 passed, 1 failed\n$/);
  });

  it('--json gives the results as data; runs named by id are read from --store', async () => {
    const suite = writeSuite('by-id.yaml', [
      'config: ./loose.json',
      'runs:',
      `  - id: ${ids.large}`,
      'expect:',
      ...LARGE_ORDERS_WAIT,
      '  - answerUnchanged: true',
    ]);
    const { code, stdout, stderr } = await cli([suite, '--store', `sqlite:${join(dir, 'runs.db')}`, '--json']);
    assert.equal(code, 1, stderr);
    const report: {
      runs: { id: string; changed: boolean }[];
      results: { name: string; passed: boolean; checked: number; failures: { runId: string; call?: JsonObject }[] }[];
      passed: number;
      failed: number;
    } = JSON.parse(stdout);
    assert.deepEqual(report.runs, [{ id: ids.large, changed: false }]);
    assert.deepEqual(
      report.results.map((r) => [r.name, r.passed, r.checked]),
      [
        ['orders above 10,000 need a person', false, 1],
        ['answer unchanged', true, 1],
      ],
    );
    assert.deepEqual(report.results[0]?.failures[0]?.call, {
      toolCallId: report.results[0]?.failures[0]?.call?.['toolCallId'],
      name: 'placeOrder',
      step: 1,
      arguments: LARGE,
    });
    assert.deepEqual([report.passed, report.failed], [1, 1]);
  });

  it('a bad suite, a missing run and a missing store exit 2 with what to fix', async () => {
    const bad = await cli([
      writeSuite('bad.yaml', ['runs:', '  - file: ./runs/orders.jsonl', 'expect:', '  - noNewDenial: true']),
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad\.yaml is not a valid policy test suite:\n/);
    assert.match(bad.stderr, /\n {2}- expect\.0\.noNewDenial: unknown key — did you mean "noNewDenials"\?/);
    const missing = writeSuite('missing.yaml', ['runs:', '  - id: run_nope', 'expect:', '  - noNewDenials: true']);
    const noRun = await cli([missing, '--store', `sqlite:${join(dir, 'runs.db')}`]);
    assert.equal(noRun.code, 2);
    assert.match(noRun.stderr, /run run_nope not found in the store .*fix the id in the suite/);
    const noStore = await cli([missing, '--store', `sqlite:${join(dir, 'nope.db')}`]);
    assert.equal(noStore.code, 2);
    assert.match(noStore.stderr, /there is no store at .*nope\.db/);
    assert.equal(noStore.stdout, '');
  });
});
