// Approval notifications from a real `toolgate serve` (SQLite file, the demo's scripted model and the real
// power-exchange MCP server) to a local webhook receiver that verifies every signature as docs/approvals.md says:
// JSON and Slack targets, a failing target retried and recorded, escalation and rejection on timeout, notify-again.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook } from '../../src/client/verify-webhook.ts';
import { isJsonObject, type JsonObject, type Run, type RunEvent } from '../../src/core/index.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';
import { waitUntil } from '../support/wait-until.ts';

const KEY = 'acme-notify-key-0123456789';
const SECRET = 'notify-secret-0123456789abcdef';
const INPUT = 'How is the day-ahead power market looking? Then bid for alice: 7,000 MWh of DE-BASE-D+1 at 85 EUR/MWh.';

interface Delivery {
  path: string;
  id: string;
  body: JsonObject;
  attempt: number;
}

/** A webhook receiver: /fail answers 500, everything else 200; every request's signature is checked. */
async function startReceiver(): Promise<{ server: Server; url: string; got: Delivery[]; bad: string[] }> {
  const got: Delivery[] = [];
  const bad: string[] = [];
  const seen = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      void verifyWebhook({ secret: SECRET, headers: req.headers, body: raw }).then((verified) => {
        if (!verified.valid) {
          bad.push(`${req.url ?? ''}: ${verified.reason}`);
          res.writeHead(401).end();
          return;
        }
        const attempt = (seen.get(verified.id) ?? 0) + 1;
        seen.set(verified.id, attempt);
        const body: unknown = JSON.parse(raw);
        if (isJsonObject(body)) got.push({ path: req.url ?? '', id: verified.id, body, attempt });
        res.writeHead(req.url === '/fail' ? 500 : 200).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got, bad };
}

function target(name: string, url: string, extra = ''): string {
  return `    - { name: ${name}, url: "${url}", secret: "env:HOOK_SECRET"${extra} }\n`;
}

function field(value: unknown, ...path: string[]): unknown {
  let here = value;
  for (const key of path) here = isJsonObject(here) ? here[key] : undefined;
  return here;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

describe('approval notifications, escalation and timeouts from toolgate serve', () => {
  let dir: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const servers: StartedProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-notify-'));
    receiver = await startReceiver();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(name: string, approvals: string): Promise<StartedProcess & { url: string }> {
    const cwd = join(dir, name);
    const base = 'tenants:\n  acme:\n    apiKeys: ["env:ACME_KEY"]\n';
    const store = `server:\n  store: "sqlite:${join(cwd, 'runs.db')}"\n`;
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, 'toolgate.yaml'), `${base}${store}approvals:\n${approvals}`);
    const started = await startServe({
      cwd,
      args: ['--demo'],
      env: { ACME_KEY: KEY, HOOK_SECRET: SECRET, LINK_SECRET: 'link-secret-0123456789abcdef-0123456789' },
    });
    servers.push(started);
    return started;
  }

  async function startRun(url: string): Promise<string> {
    const created = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ input: INPUT }),
    });
    assert.equal(created.status, 201);
    return ((await created.json()) as Run).id;
  }

  async function events(url: string, runId: string): Promise<RunEvent[]> {
    const response = await fetch(`${url}/v1/runs/${runId}/events?format=json`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    return ((await response.json()) as { events: RunEvent[] }).events;
  }

  async function eventsUntil(url: string, runId: string, done: (log: RunEvent[]) => boolean): Promise<RunEvent[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const log = await events(url, runId);
      if (done(log)) return log;
      if (Date.now() > deadline) assert.fail(`the run's log never got there: ${log.map((e) => e.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('signed JSON and Slack notices with links; a failing target; escalation, then a timeout reject', async () => {
    const r = receiver.url;
    const server = await serve(
      'escalate',
      `  notify:\n${target('ops', `${r}/json`)}${target('chat', `${r}/slack`, ', format: slack')}` +
        `${target('broken', `${r}/fail`, ', maxAttempts: 2')}` +
        `  timeoutMs: 1500\n  onTimeout: escalate\n  linkSecret: "env:LINK_SECRET"\n` +
        `  escalation:\n    timeoutMs: 1500\n    notify:\n  ${target('boss', `${r}/esc`)}`,
    );
    const runId = await startRun(server.url);
    const forRun = (path: string): Delivery[] =>
      receiver.got.filter((d) => d.path === path && d.id.startsWith(`${runId}.`));
    await waitUntil(() => forRun('/json').length > 0 && forRun('/slack').length > 0, 'the first notifications');
    const json = forRun('/json')[0]?.body;
    assert.equal(field(json, 'run', 'id'), runId);
    assert.equal(field(json, 'run', 'tenantId'), 'acme');
    assert.equal(field(json, 'call', 'name'), 'placeOrder');
    assert.equal(field(json, 'round'), 'first');
    assert.match(String(field(json, 'links', 'approve')), new RegExp(`^${server.url}/v1/approvals/`));
    assert.match(String(field(json, 'email', 'text')), /Approve: http/);
    const slack = forRun('/slack')[0]?.body;
    const actions = list(field(slack, 'blocks')).find((b) => field(b, 'type') === 'actions');
    const urls = list(field(actions, 'elements')).map((b) => field(b, 'url'));
    assert.equal(urls.length, 3);
    assert.ok(urls.every((u) => typeof u === 'string' && u.startsWith(server.url)));

    const log = await eventsUntil(server.url, runId, (l) => l.some((e) => e.type === 'run_completed'));
    assert.deepEqual(receiver.bad, [], 'every delivery carried a valid signature');
    const notified = log.flatMap((e) => (e.type === 'approval_notified' ? [e.data] : []));
    const byTarget = new Map(notified.map((n) => [n.target, n]));
    assert.equal(byTarget.get('ops')?.outcome, 'delivered');
    assert.equal(byTarget.get('ops')?.linkIds?.length, 2);
    assert.equal(byTarget.get('chat')?.outcome, 'delivered');
    assert.equal(byTarget.get('broken')?.outcome, 'failed');
    assert.equal(byTarget.get('broken')?.attempts, 2);
    assert.deepEqual(
      byTarget.get('broken')?.failures?.map((f) => f.status),
      [500, 500],
    );
    assert.equal(forRun('/fail').length, 2, 'the failing target was tried twice with one webhook-id');
    assert.equal(new Set(forRun('/fail').map((d) => d.id)).size, 1);
    assert.equal(byTarget.get('boss')?.round, 'escalation');
    assert.equal(forRun('/esc')[0]?.body['round'], 'escalation');

    const timeouts = log.flatMap((e) => (e.type === 'approval_timed_out' ? [[e.data.round, e.data.action]] : []));
    assert.deepEqual(timeouts, [
      [1, 'escalate'],
      [2, 'reject'],
    ]);
    const decision = log.find((e) => e.type === 'input_received');
    assert.ok(decision?.type === 'input_received' && decision.data.input.type === 'approval');
    assert.equal(decision.data.input.decision, 'reject');
    assert.deepEqual(decision.data.input.source, { via: 'timeout' });
    assert.equal(decision.data.input.reason, 'no decision within 1.5 s (approvals.escalation.timeoutMs)');
    assert.ok(
      !log.some((e) => e.type === 'tool_result' && e.data.name === 'placeOrder' && e.data.ok),
      'the venue got no order',
    );
  });

  it('notify-again notifies the same target again, under a new webhook-id', async () => {
    const r = receiver.url;
    const server = await serve(
      'again',
      `  notify:\n${target('ops', `${r}/again`)}  timeoutMs: 1500\n  onTimeout: notify-again\n`,
    );
    const runId = await startRun(server.url);
    const forRun = (): Delivery[] => receiver.got.filter((d) => d.path === '/again' && d.id.startsWith(`${runId}.`));
    await waitUntil(() => forRun().length >= 2, 'two notifications', 15_000);
    assert.deepEqual(
      forRun()
        .slice(0, 2)
        .map((d) => [d.body['round'], d.id]),
      [
        ['first', `${runId}.${String(field(forRun()[0]?.body, 'call', 'toolCallId'))}.ops.first`],
        ['again', `${runId}.${String(field(forRun()[0]?.body, 'call', 'toolCallId'))}.ops.again.1`],
      ],
    );
    const log = await eventsUntil(
      server.url,
      runId,
      (l) => l.filter((e) => e.type === 'approval_notified').length >= 2,
    );
    assert.deepEqual(log.flatMap((e) => (e.type === 'approval_timed_out' ? [e.data.action] : [])).slice(0, 1), [
      'notify-again',
    ]);
  });
});
