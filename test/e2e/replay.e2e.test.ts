// `toolgate replay` on real stored runs: runs recorded by `toolgate run` in a SQLite store with the power-exchange
// example (its state file shows whether the venue received a write) and the mock model, replayed under other
// policies and parser settings by the real binary. A replay must never reach the venue with a write.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { canonicalJson, type ReplayDiff, type RunEvent } from '../../src/core/index.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

const BID = '{"userId":"bob","side":"BUY","price":41.5,"qty":1,"symbol":"DE-BASE-D+1"}';
const WRITTEN_CALL = '<tool_call>{"name": "getMarketMetrics", "arguments": {}}</tool_call>';

/** "bid": bob bids, then the model repeats what the venue said; "metrics as text": a call written in the text. */
function model(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  if (prompt === 'metrics as text') return { text: WRITTEN_CALL };
  const tool = messages.findLast((m) => m.role === 'tool');
  if (tool !== undefined) return { text: `Told: ${(tool.content ?? '').slice(0, 60)}` };
  return { toolCalls: [{ id: 'b1', name: 'placeOrder', arguments: BID }] };
}

describe('toolgate replay: stored runs under a new configuration, without side effects', () => {
  let mock: MockOpenAI;
  let dir: string;
  let db: string;
  const state = () => join(dir, 'venue.json');
  /**
   * The venue's state as its file has it now (users, wallets, orders, trades, idempotency keys), without the time it
   * was saved: the venue saves once whenever it starts (a replay lists its tools), and after every write.
   */
  const venue = (): string => {
    if (!existsSync(state())) return '';
    const { savedAt: _savedAt, ...rest } = JSON.parse(readFileSync(state(), 'utf8')) as { savedAt: string };
    // Key order may change when the venue saves again: compared as canonical JSON.
    return canonicalJson(rest);
  };
  const cli = (args: string[]) =>
    runCli(args, { cwd: dir, env: { TOOLGATE_HOME: join(dir, 'home'), TOOLGATE_URL: '', TOOLGATE_API_KEY: '' } });
  /** A config file: the mock model, the venue (the bid's state file, unless another is named) and this policy. */
  const config = (name: string, extra: string, stateFile = state()): string => {
    const file = join(dir, name);
    writeFileSync(
      file,
      `model: openai:mock\nproviders:\n  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }\n` +
        `servers:\n  power-exchange:\n    command: ${JSON.stringify(process.execPath)}\n` +
        `    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, --state, ${JSON.stringify(stateFile)}]\n${extra}`,
    );
    return file;
  };
  const policy = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const record = async (prompt: string, configFile: string): Promise<string> => {
    const ran = await cli(['run', prompt, '--config', configFile, '--store', `sqlite:${db}`]);
    return /· (run_\w+)\n/.exec(ran.stderr)?.[1] ?? assert.fail(`no run id in:\n${ran.stderr}`);
  };
  const replay = async (args: string[]) => {
    const result = await cli(['replay', ...args, '--store', `sqlite:${db}`]);
    return { ...result, diffs: (): ReplayDiff[] => JSON.parse(result.stdout) as ReplayDiff[] };
  };
  const stored = async (runId: string): Promise<string> => {
    const store = await openSqliteRunStore({ path: db });
    try {
      return JSON.stringify([await store.getRun(runId), await store.readEvents(runId)]);
    } finally {
      await store.close();
    }
  };

  let allowed: string;
  let denied: string;
  let missed: string;
  let base: string;
  /** The venue after the runs were recorded, before any replay. */
  let recordedVenue: string;
  /** The original bid's run and log, before any replay. */
  let recordedBid: string;
  type Ran = Awaited<ReturnType<typeof replay>>;
  let byId: Ran;
  let strict: Ran;
  let deny: Ran;
  let parser: Ran;
  let fromFile: Awaited<ReturnType<typeof cli>>;
  let exported: Awaited<ReturnType<typeof cli>>;

  before(async () => {
    mock = await startMockOpenAI({ handler: model });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-replay-'));
    db = join(dir, 'runs.db');
    base = config('base.yaml', 'tools:\n  "power-exchange/placeOrder": { approval: never }\n');
    const strictPolicy = policy('strict.yaml', 'tools:\n  "power-exchange/placeOrder": { approval: required }\n');
    const denyPolicy = policy('deny.yaml', 'tenants:\n  "*": { deny: ["power-exchange/placeOrder"] }\n');
    // The other two runs have venues of their own: a venue saves its state when it starts, and two venues on one
    // file at once could lose the bid.
    const denyRule = 'tenants:\n  "*": { deny: ["power-exchange/placeOrder"] }\n';
    const denyConfig = config('deny-config.yaml', denyRule, join(dir, 'venue-denied.json'));
    const neverConfig = config('never.yaml', 'textToolCalls: never\n', join(dir, 'venue-missed.json'));
    [allowed, denied, missed] = await Promise.all([
      record('bid', base),
      record('bid', denyConfig),
      record('metrics as text', neverConfig),
    ]);
    recordedVenue = venue();
    recordedBid = await stored(allowed);
    const out = join(dir, 'runs.jsonl');
    // Replays only read the store (but --save) and list the venue's tools: they run side by side.
    [byId, strict, deny, parser, exported] = await Promise.all([
      replay([allowed, denied, 'run_missing', '--config', base]),
      replay([allowed, '--config', base, '--policy', strictPolicy, '--save', '--json']),
      replay([allowed, '--config', base, '--policy', denyPolicy, '--json']),
      replay([missed, '--config', config('auto.yaml', 'textToolCalls: auto\n'), '--json']),
      cli(['runs', 'export', denied, '--out', out, '--store', `sqlite:${db}`]),
    ]);
    fromFile = await cli(['replay', '--from', out, '--config', base]);
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the runs were recorded as the cases need: the bid ran once, the denied one not, the call missed', async () => {
    assert.equal(recordedVenue.match(/"priceCents":4150/g)?.length, 1);
    const events = JSON.parse(await stored(missed))[1] as RunEvent[];
    assert.equal(events.filter((e) => e.type === 'tool_call').length, 0);
  });

  it('no replay reached the venue with a write: its orders, wallets and idempotency keys are as recorded', () => {
    assert.notEqual(recordedVenue, '');
    assert.equal(venue(), recordedVenue);
  });

  it('a stricter policy: allowed → approval_required, or allowed → denied', () => {
    assert.equal(strict.code, 0, strict.stderr);
    const [diff] = strict.diffs();
    assert.equal(diff?.of, allowed);
    assert.deepEqual(
      diff?.calls.map((c) => [c.kind, c.changes]),
      [['changed', ['decision: allowed → approval_required', 'outcome: executed → not_run']]],
    );
    assert.deepEqual(diff?.calls[0]?.after?.arguments, JSON.parse(BID));
    assert.equal(deny.code, 0, deny.stderr);
    assert.deepEqual(
      deny.diffs()[0]?.calls.map((c) => c.changes),
      [['decision: allowed → denied', 'outcome: executed → not_run']],
    );
  });

  it('readable output: no change, a looser policy\'s "would run", an unknown id (exit 1, the rest replayed)', () => {
    assert.equal(byId.code, 1);
    assert.match(byId.stderr, /toolgate: run run_missing not found in the store sqlite:/);
    assert.equal(
      byId.stdout,
      `run ${allowed}: no change\n\n` +
        `run ${denied}: changed\n` +
        '  placeOrder (step 1): decision: denied → allowed\n' +
        '  placeOrder (step 1): outcome: not_run → would_run\n' +
        `  would run: placeOrder ${BID}\n` +
        // The recorded answer repeats the refusal; the replay's tool said "would have run": nothing else changed.
        "  from step 2 on the replay is not the original's conversation: later recorded turns answered a different " +
        'one (--live-model asks the model instead)\n',
    );
  });

  it('a parser setting that recovers the call the original missed: the call is added', () => {
    assert.equal(parser.code, 0, parser.stderr);
    const [diff] = parser.diffs();
    assert.deepEqual(
      diff?.calls.map((c) => [c.kind, c.after?.name, c.after?.decision, c.after?.outcome]),
      [['added', 'getMarketMetrics', 'allowed', 'would_run']],
    );
    assert.deepEqual(diff?.answer, { before: WRITTEN_CALL, changed: true });
    assert.deepEqual(diff?.status, { before: 'completed', after: 'failed' });
    assert.equal(diff?.divergedAtStep, 2);
  });

  it('--save stores the replay beside the original, with replay_compared; the original is byte-identical', async () => {
    const savedId = /replay of \S+ saved as (run_\w+)/.exec(strict.stderr)?.[1] ?? assert.fail(strict.stderr);
    assert.equal(await stored(allowed), recordedBid);
    const [run, events] = JSON.parse(await stored(savedId)) as [{ metadata: unknown; status: string }, RunEvent[]];
    assert.deepEqual(run.metadata, { replayOf: allowed, replay: true });
    assert.equal(run.status, 'completed');
    assert.deepEqual(
      events.slice(-2).map((e) => e.type),
      ['replay_compared', 'run_completed'],
    );
    const compared = events.at(-2);
    assert.deepEqual(compared?.type === 'replay_compared' ? compared.data : undefined, {
      of: allowed,
      diff: strict.diffs()[0],
    });
  });

  it('runs export writes JSONL that replay --from reads: the same diff as by id', () => {
    assert.equal(exported.code, 0, exported.stderr);
    const lines = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(Object.keys(JSON.parse(lines[0] ?? '{}') as object), ['toolgateExport', 'run']);
    assert.equal(lines.length, 1 + (JSON.parse(lines[0] ?? '{}') as { run: { lastEventId: number } }).run.lastEventId);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(fromFile.stdout, byId.stdout.slice(byId.stdout.indexOf(`run ${denied}`)));
  });
});
