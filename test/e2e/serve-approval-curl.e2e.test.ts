// The curl line that approves a waiting run, as `toolgate serve` prints it when its
// output goes to pipes (a service manager, `| tee`, a file): taken from the output and
// run by a real shell against the real server, with the key in the environment.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';
import { waitUntil } from '../support/wait-until.ts';

const exec = promisify(execFile);
const KEY = 'acme-curl-key-0123456789';
const INPUT = 'How is the day-ahead power market looking? Then bid for alice: 7,000 MWh of DE-BASE-D+1 at 85 EUR/MWh.';
const APPROVE_LINE = /^approve placeOrder \((run_\w+)\): (curl .+)$/m;

describe('toolgate serve with its output to pipes: the approval curl line', () => {
  let dir: string;
  let server: (StartedProcess & { url: string }) | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-approval-curl-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      'tenants:\n  acme:\n    apiKeys: ["env:ACME_CURL_KEY"]\nserver:\n  store: "memory:"\n',
    );
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as printed in a shell and approves the call; the JSON log holds the same command', async () => {
    server = await startServe({ cwd: dir, args: ['--demo'], env: { ACME_CURL_KEY: KEY } });
    const created = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ input: INPUT }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as Run;
    const output = (): string => server?.output() ?? '';
    await waitUntil(() => APPROVE_LINE.exec(output())?.[1] === id, 'the approval line', 30_000);
    const curl = APPROVE_LINE.exec(output())?.[2] ?? '';

    const { stdout } = await exec('sh', ['-c', curl], {
      env: { PATH: process.env['PATH'] ?? '', TOOLGATE_API_KEY: KEY },
    });
    const after = JSON.parse(stdout) as Run;
    assert.equal(after.id, id);
    assert.equal(after.pendingApproval, undefined, 'the decision was recorded');

    const events = async (): Promise<RunEvent[]> =>
      (
        (await (
          await fetch(`${server?.url ?? ''}/v1/runs/${id}/events?format=json`, {
            headers: { authorization: `Bearer ${KEY}` },
          })
        ).json()) as { events: RunEvent[] }
      ).events;
    let log: RunEvent[] = [];
    for (let i = 0; i < 600 && !log.some((e) => e.type === 'run_completed'); i++) {
      log = await events();
      if (!log.some((e) => e.type === 'run_completed')) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const decision = log.find((e) => e.type === 'input_received');
    assert.deepEqual(
      decision?.type === 'input_received' && decision.data.input.type === 'approval'
        ? decision.data.input.decision
        : undefined,
      'approve',
    );
    assert.ok(
      log.some((e) => e.type === 'tool_result' && e.data.name === 'placeOrder' && e.data.ok),
      'the approved order ran',
    );

    const logged = output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line['msg'] === 'run waits for approval' && line['runId'] === id);
    assert.equal(logged?.['curl'], curl, 'the log line holds the same command (JSON-encoded)');
  });
});
