// `toolgate demo` and the logs of `toolgate serve --demo`, as a user sees them:
// child processes, the real example MCP server, the scripted demo model.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoCommand } from '../../src/cli/demo-command.ts';
import { fakeTerminal } from '../support/fake-terminal.ts';
import type { Run, RunEvent, RunEventDataMap } from '../../src/core/index.ts';
import { runCli, startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-demo-key-0123456789';
const INPUT = 'How is the market today, demo-input-7f3a?';

type LogLine = Record<string, unknown> & { level: string; msg: string; time: string };

/** Parses the JSON log lines of a process's output (other lines, such as stdout's, are skipped). */
function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function waitForLog(server: StartedProcess, found: (line: LogLine) => boolean, what: string): Promise<LogLine> {
  for (let i = 0; i < 400; i++) {
    const line = logLines(server.output()).find(found);
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no log line for ${what}; output:\n${server.output()}`);
}

/** Waits until the process has printed text matching `pattern` (lines arrive in separate chunks). */
async function waitForOutput(server: StartedProcess, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 400 && !pattern.test(server.output()); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(server.output(), pattern);
}

/** The POST a person makes by pasting the logged curl line, with $TOOLGATE_API_KEY set. */
async function pasteCurl(curl: string, env: Record<string, string>): Promise<Response> {
  const url = /curl -X POST (\S+)/.exec(curl)?.[1];
  const body = /-d '([^']*)'/.exec(curl)?.[1];
  assert.ok(url !== undefined && body !== undefined, `a POST with a body: ${curl}`);
  const headers: Record<string, string> = {};
  for (const [, quoted, plain] of curl.matchAll(/-H (?:"([^"]*)"|'([^']*)')/g)) {
    const header = (quoted ?? plain ?? '').replace(/\$(\w+)/g, (_, name: string) => env[name] ?? '');
    const colon = header.indexOf(':');
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return fetch(url, { method: 'POST', headers, body });
}

describe('toolgate demo', () => {
  it(
    'without a terminal: exit 0; the normalisation, the dry-run ' +
      'preview and the approval are shown, and the bid runs once',
    async () => {
      const { code, stdout, stderr } = await runCli(['demo']);
      assert.equal(code, 0, stderr);
      assert.match(stderr, /normalised side "buy" → "BUY", qty "7,000" → 7000/);
      assert.match(stderr, /injected server-side: userId/);
      assert.match(
        stderr,
        new RegExp(
          String.raw`⊘ dry run: placeOrder would be called with \{"userId":"alice","side":"` +
            String.raw`BUY","qty":7000,"price":85,"symbol":"DE-BASE-D\+1"\}; nothing executed`,
        ),
      );
      assert.match(stderr, /⏸ placeOrder \(write\) waits for approval/);
      assert.match(stderr, /no terminal to ask on .*the demo approves the bid for you/);
      assert.match(stderr, /`toolgate run` would stop here with exit code 3/);
      assert.match(stderr, /decision on placeOrder: approve/);
      assert.equal(
        stderr.match(/← placeOrder ok [\d.]+ ms: Order ord-\d+ accepted: BUY 7,000\.0 MWh/g)?.length,
        1,
        'the approved bid reached the venue once',
      );
      assert.equal(stderr.match(/✓ completed/g)?.length, 2);
      assert.match(
        stderr,
        /--mcp "node examples\/power-exchange\/server\.ts --initial-cash 1000000"/,
        'a path that works from the repository',
      );
      assert.match(stdout, /This answer is scripted/);
    },
  );

  it('--json: the events of both runs, with the normalisations, the dry run and the one real order', async () => {
    const { code, stdout, stderr } = await runCli(['demo', '--json']);
    assert.equal(code, 0, stderr);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    const started = events.filter((e) => e.type === 'run_started');
    assert.deepEqual(
      started.map((e) => e.data.dryRun === true),
      [true, false],
    );
    const decisions = events.flatMap((e) =>
      e.type === 'gate_decision' && e.data.name === 'placeOrder' ? [e.data] : [],
    );
    assert.deepEqual(
      decisions.map((d) => d.decision),
      ['dry_run', 'approval_required', 'allowed'],
    );
    for (const decision of decisions) {
      assert.deepEqual(decision.normalisations, [
        { path: '/side', from: 'buy', to: 'BUY', rule: 'enum_case' },
        { path: '/qty', from: '7,000', to: 7000, rule: 'number_from_string' },
      ]);
      assert.deepEqual(decision.injected, [{ key: 'userId', overridden: true }]);
    }
    const results = events.flatMap((e) => (e.type === 'tool_result' && e.data.name === 'placeOrder' ? [e.data] : []));
    assert.deepEqual(
      results.map((r) => [r.ok, r.dryRun === true]),
      [
        [true, true],
        [true, false],
      ],
    );
    const placed = results[1]?.structuredContent as
      { order?: { qty?: number; side?: string; userId?: string } } | undefined;
    assert.deepEqual([placed?.order?.qty, placed?.order?.side, placed?.order?.userId], [7000, 'BUY', 'alice']);
    assert.equal(events.filter((e) => e.type === 'approval_required').length, 1);
  });

  it('on a terminal the person decides: a rejection is told to the model and nothing is sent', async () => {
    const term = fakeTerminal(['n', 'too big for today']);
    const code = await demoCommand([], term.io);
    const err = term.stderr();
    assert.equal(code, 0, err);
    assert.match(err, /Answer y to send the bid to the venue/);
    assert.doesNotMatch(err, /no terminal to ask on/);
    assert.match(err, /decision on placeOrder: reject \(by cli\): too big for today/);
    assert.match(err, /← placeOrder rejected: A person rejected this call/);
    assert.doesNotMatch(err, /Order ord-\d+ accepted/);
  });
});

describe('toolgate serve --demo: logs', () => {
  let dir: string;
  let server: (StartedProcess & { url: string }) | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-demo-logs-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      'tenants:\n  acme:\n    apiKeys: ["env:ACME_DEMO_KEY"]\nserver:\n  store: "memory:"\n',
    );
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'an approval is logged as a curl line with a key placeholder; ' +
      'pasting it approves the run; runs and requests are logged',
    async () => {
      server = await startServe({ cwd: dir, args: ['--demo'], env: { ACME_DEMO_KEY: KEY } });
      await waitForOutput(server, /try: curl .* -H "authorization: Bearer \$TOOLGATE_API_KEY"/);

      const created = await fetch(`${server.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ input: INPUT }),
      });
      assert.equal(created.status, 201);
      const run = (await created.json()) as Run;
      const waiting = await waitForLog(
        server,
        (l) => l.msg === 'run waits for approval' && l['runId'] === run.id,
        'the approval',
      );
      const curl = String(waiting['curl']);
      assert.match(curl, new RegExp(`^curl -X POST ${server.url}/v1/runs/${run.id}/input `));
      assert.match(curl, /-H "authorization: Bearer \$TOOLGATE_API_KEY"/);
      assert.equal(waiting['tool'], 'placeOrder');

      const approved = await pasteCurl(curl, { TOOLGATE_API_KEY: KEY });
      assert.equal(approved.status, 202, await approved.clone().text());
      const ended = await waitForLog(
        server,
        (l) => l.msg === 'run completed' && l['runId'] === run.id,
        'the end of the run',
      );
      assert.deepEqual(
        [ended['tenantId'], ended['status'], ended['steps'], typeof ended['durationMs']],
        ['acme', 'completed', 3, 'number'],
      );
      const events = (await (
        await fetch(`${server.url}/v1/runs/${run.id}/events?format=json`, {
          headers: { authorization: `Bearer ${KEY}` },
        })
      ).json()) as { events: RunEvent[] };
      const orders = events.events.flatMap((e) =>
        e.type === 'tool_result' && e.data.name === 'placeOrder' ? [e.data as RunEventDataMap['tool_result']] : [],
      );
      assert.deepEqual(
        orders.map((r) => r.ok),
        [true],
        'the approved order was placed once',
      );

      const lines = logLines(server.output());
      const start = lines.find((l) => l.msg === 'run started' && l['runId'] === run.id);
      assert.equal(start?.['tenantId'], 'acme');
      const requests = lines.filter((l) => l.msg === 'request' && l['runId'] === run.id);
      const posted = requests.find((l) => l['method'] === 'POST' && l['path'] === '/v1/runs');
      assert.equal(posted?.['status'], 201, 'the request that created the run names it');
      const input = requests.find((l) => l['path'] === `/v1/runs/${run.id}/input`);
      assert.equal(input?.['status'], 202);
      for (const line of [posted, input]) {
        assert.equal(typeof line?.['latencyMs'], 'number');
        assert.match(String(line?.['requestId']), /^req_/);
        assert.match(String(line?.['time']), /^\d{4}-\d\d-\d\dT/);
      }
      const output = server.output();
      assert.equal(output.includes(KEY), false, 'the key is never logged');
      assert.equal(output.includes('demo-input-7f3a'), false, 'run inputs are not logged');
      assert.doesNotMatch(output, /"qty"|7,000/, 'tool arguments are not logged');
    },
  );

  it('--log-level warn leaves out info lines; a bad level is a usage error naming the levels', async () => {
    const quiet = await startServe({ cwd: dir, args: ['--demo', '--log-level', 'warn'], env: { ACME_DEMO_KEY: KEY } });
    try {
      const created = await fetch(`${quiet.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ input: 'quiet' }),
      });
      assert.equal(created.status, 201);
      const run = (await created.json()) as Run;
      // The run pauses for approval: by then its start and the request have been logged, if at all.
      for (let i = 0; i < 400; i++) {
        const now = (await (
          await fetch(`${quiet.url}/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${KEY}` } })
        ).json()) as Run;
        if (now.status === 'waiting_approval') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await quiet.stop();
    }
    const lines = logLines(quiet.output());
    assert.deepEqual(
      lines.filter((l) => l.level === 'info' || l.level === 'debug'),
      [],
    );
    assert.match(quiet.output(), /serving on http/, 'the human lines on stdout stay');

    const bad = await runCli(['serve', '--log-level', 'loud'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--log-level must be one of fatal, error, warn, info, debug, trace; got "loud"/);
    const badEnv = await runCli(['serve'], { cwd: dir, env: { TOOLGATE_LOG_LEVEL: 'chatty' } });
    assert.equal(badEnv.code, 2);
    assert.match(badEnv.stderr, /TOOLGATE_LOG_LEVEL must be one of/);
  });
});
