// The runs API against a real `toolgate serve` process: SQLite store on disk,
// the power-exchange example as its MCP server, the mock model.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Run, RunEvent } from '../../src/core/index.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type RecordedRequest,
  type MockResponse,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli, startServe, type StartedProcess } from '../support/processes.ts';
import { collectSse, type SseMessage } from '../support/sse-client.ts';

const ACME = 'acme-key-0123456789';
const GLOBEX = 'globex-key-0123456789';

/** The model answers by the prompt, so concurrent runs each get their own script. */
function modelFor(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const last = messages.at(-1)?.content ?? '';
  // The plan and reflect strategies' side calls, told apart by what they ask.
  if (/write a plan/.test(last))
    return { text: JSON.stringify({ steps: [{ tool: 'getMarketMetrics', arguments: {} }] }) };
  if (/The plan has run/.test(last)) return { text: '{"final_answer": "planned and done"}' };
  if (/Stop and reflect/.test(last)) return { text: '{"verdict": "escalate", "reason": "which user?"}' };
  if (prompt.startsWith('escalate')) {
    return last === 'use bob'
      ? { text: 'bob it is' }
      : { toolCalls: [{ id: 'w1', name: 'getUserWallet', arguments: '{"userId":"zed"}' }] };
  }
  if (prompt.startsWith('slow')) {
    return turn === 0 ? { toolCalls: [{ id: 'slow1', name: 'getOrderBook', arguments: '{}' }] } : { text: 'slow done' };
  }
  if (prompt.startsWith('order')) {
    return turn === 0
      ? {
          toolCalls: [
            {
              id: 'ord1',
              name: 'placeOrder',
              arguments: '{"userId":"bob","side":"BUY","price":90,"qty":1,"symbol":"DE-BASE-D+1"}',
            },
          ],
        }
      : { text: 'ordered' };
  }
  if (prompt.startsWith('chatty')) {
    // Megabytes of streamed text, live, after a pause that lets a subscriber connect first.
    return { delayMs: 800, then: { raw: bigStream(80, 100_000), contentType: 'text/event-stream' } };
  }
  return turn === 0
    ? { text: 'Checking.', toolCalls: [{ id: 'm1', name: 'getMarketMetrics', arguments: '{}' }] }
    : { text: `Answer to: ${prompt}` };
}

/** An OpenAI-style SSE body streaming `chunks` pieces of `size` characters. */
function bigStream(chunks: number, size: number): string {
  const piece = (delta: object, finish: string | null) => {
    const choices = [{ index: 0, delta, finish_reason: finish }];
    const data = JSON.stringify({
      id: 'chatcmpl-big',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'mock',
      choices,
    });
    return `data: ${data}\n\n`;
  };
  const body = Array.from({ length: chunks }, (_, i) => piece({ content: String(i % 10).repeat(size) }, null)).join('');
  return `${piece({ role: 'assistant', content: '' }, null)}${body}${piece({}, 'stop')}data: [DONE]\n\n`;
}

describe('runs API e2e (toolgate serve)', () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };

  const api = async (path: string, init: RequestInit & { key?: string } = {}) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: `Bearer ${init.key ?? ACME}`,
      ...(init.headers as Record<string, string>),
    };
    return fetch(`${server.url}${path}`, { ...init, headers });
  };
  const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
  const createRun = async (input: string, key = ACME): Promise<Run> => {
    const response = await api('/v1/runs', { method: 'POST', body: JSON.stringify({ input }), key });
    assert.equal(response.status, 201, await response.clone().text());
    return json<Run>(response);
  };
  const waitFor = async (id: string, statuses: string[], key = ACME): Promise<Run> => {
    for (let i = 0; i < 400; i++) {
      const run = await json<Run>(await api(`/v1/runs/${id}`, { key }));
      if (statuses.includes(run.status)) return run;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`run ${id} did not reach ${statuses.join('|')}`);
  };
  const log = async (id: string, key = ACME): Promise<RunEvent[]> =>
    (await json<{ events: RunEvent[] }>(await api(`/v1/runs/${id}/events?format=json`, { key }))).events;
  const asEvents = (messages: SseMessage[]): RunEvent[] =>
    messages.filter((m) => m.event !== 'overflow').map((m) => JSON.parse(m.data) as RunEvent);

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-serve-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, "--delay", "getOrderBook=4000"]
tools:
  "power-exchange/placeOrder": { approval: required }
tenants:
  acme:
    apiKeys: ["${ACME}"]
  globex:
    apiKeys: [{ key: "${GLOBEX}", userId: svc, allowUserIdHeader: true }]
    deny: ["power-exchange/placeOrder"]
server:
  store: sqlite:./data/runs.db
  sseBufferLimitBytes: 4096
`,
    );
    server = await startServe({ cwd: dir });
  });
  after(async () => {
    await server?.stop();
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects requests without a valid key (401)', async () => {
    const response = await fetch(`${server.url}/v1/runs`);
    assert.equal(response.status, 401);
    assert.equal((await json<{ error: { code: string } }>(response)).error.code, 'unauthorized');
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });

  it('idempotency: the same key 20× concurrently creates one run; another body is 422', async () => {
    const body = JSON.stringify({ input: 'idem' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api('/v1/runs', { method: 'POST', body, headers: { 'idempotency-key': 'k-20' } }),
      ),
    );
    const runs = await Promise.all(responses.map((r) => json<Run>(r)));
    assert.equal(new Set(runs.map((r) => r.id)).size, 1);
    assert.deepEqual(
      responses.map((r) => r.status).sort((a, b) => a - b),
      [...Array<number>(19).fill(200), 201],
    );
    const other = await api('/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'different' }),
      headers: { 'idempotency-key': 'k-20' },
    });
    assert.equal(other.status, 422);
    assert.equal((await json<{ error: { code: string } }>(other)).error.code, 'idempotency_mismatch');
    // Keys are per tenant: globex gets its own run with the same key.
    const theirs = await api('/v1/runs', { method: 'POST', body, key: GLOBEX, headers: { 'idempotency-key': 'k-20' } });
    assert.equal(theirs.status, 201);
    assert.notEqual((await json<Run>(theirs)).id, runs[0]?.id);
    await waitFor(runs[0]?.id ?? '', ['completed']);
  });

  it('SSE from the start, from the middle and after completion equals the stored log exactly', async () => {
    const run = await createRun('stream me');
    const live = asEvents(
      await collectSse(`${server.url}/v1/runs/${run.id}/events`, { headers: { authorization: `Bearer ${ACME}` } }),
    );
    const stored = await log(run.id);
    assert.deepEqual(live, stored);
    assert.equal(stored.at(-1)?.type, 'run_completed');
    assert.deepEqual(
      stored.map((e) => e.id),
      stored.map((_, i) => i + 1),
    );
    const middle = asEvents(
      await collectSse(`${server.url}/v1/runs/${run.id}/events`, {
        headers: { authorization: `Bearer ${ACME}`, 'last-event-id': '4' },
      }),
    );
    assert.deepEqual(middle, stored.slice(4));
    const viaQuery = asEvents(
      await collectSse(`${server.url}/v1/runs/${run.id}/events?after=2`, {
        headers: { authorization: `Bearer ${ACME}` },
      }),
    );
    assert.deepEqual(viaQuery, stored.slice(2));
  });

  it("POST /v1/runs?stream=true answers with the run's SSE stream", async () => {
    const messages = await collectSse(`${server.url}/v1/runs?stream=true`, {
      method: 'POST',
      body: JSON.stringify({ input: 'one request' }),
      headers: { authorization: `Bearer ${ACME}`, 'content-type': 'application/json' },
    });
    const events = asEvents(messages);
    assert.equal(events[0]?.id, 1);
    assert.equal(events.at(-1)?.type, 'run_completed');
    assert.deepEqual(events, await log(events[0]?.runId ?? ''));
  });

  it('a slow subscriber gets overflow, then resumes losslessly with Last-Event-ID', async () => {
    const run = await createRun('chatty');
    // A raw socket that reads nothing while megabytes of live events are produced.
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.pause();
    socket.write(`GET /v1/runs/${run.id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ACME}\r\n\r\n`);
    await waitFor(run.id, ['completed']);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((r) => socket.once('end', r));
    socket.resume();
    await ended;
    socket.destroy();
    const raw = Buffer.concat(chunks).toString('utf8');
    assert.match(raw, /event: overflow/);
    const ids = [...raw.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const stored = await log(run.id);
    const last = ids.at(-1) ?? 0;
    assert.ok(last < stored.length, `overflowed before the end (got ${last} of ${stored.length})`);
    const rest = asEvents(
      await collectSse(`${server.url}/v1/runs/${run.id}/events`, {
        headers: { authorization: `Bearer ${ACME}`, 'last-event-id': String(last) },
      }),
    );
    assert.deepEqual(
      [...ids, ...rest.map((e) => e.id)],
      stored.map((e) => e.id),
      'nothing lost, nothing twice',
    );
    assert.deepEqual(rest, stored.slice(last));
  });

  it("tenant isolation: another tenant's run is 404, and tools are hidden per tenant", async () => {
    const run = await createRun('mine');
    const theirs = await api(`/v1/runs/${run.id}`, { key: GLOBEX });
    assert.equal(theirs.status, 404);
    assert.equal((await api(`/v1/runs/${run.id}/events?format=json`, { key: GLOBEX })).status, 404);
    assert.equal((await api(`/v1/runs/${run.id}/cancel`, { method: 'POST', key: GLOBEX })).status, 404);
    const list = await json<{ runs: Run[] }>(await api('/v1/runs', { key: GLOBEX }));
    assert.ok(list.runs.every((r) => r.tenantId === 'globex'));
    const acmeTools = (await json<{ tools: { name: string; effect: string }[] }>(await api('/v1/tools'))).tools;
    const globexTools = (await json<{ tools: { name: string }[] }>(await api('/v1/tools', { key: GLOBEX }))).tools;
    assert.equal(acmeTools.find((t) => t.name === 'placeOrder')?.effect, 'write');
    assert.equal(
      globexTools.some((t) => t.name === 'placeOrder'),
      false,
    );
    await waitFor(run.id, ['completed']);
  });

  it('approval over HTTP resumes the run; a decision for a call that is not pending is 409', async () => {
    const run = await createRun('order please');
    const waiting = await waitFor(run.id, ['waiting_approval']);
    assert.equal(waiting.pendingApproval?.name, 'placeOrder');
    const wrong = await api(`/v1/runs/${run.id}/input`, {
      method: 'POST',
      body: JSON.stringify({ type: 'approval', toolCallId: 'nope', decision: 'approve' }),
    });
    assert.equal(wrong.status, 409);
    const ok = await api(`/v1/runs/${run.id}/input`, {
      method: 'POST',
      body: JSON.stringify({ type: 'approval', toolCallId: waiting.pendingApproval?.toolCallId, decision: 'approve' }),
    });
    assert.equal(ok.status, 202, await ok.clone().text());
    const answer = await json<Run>(ok);
    assert.notEqual(answer.status, 'waiting_approval', 'the 202 body is the run after the decision');
    assert.equal(answer.pendingApproval, undefined);
    const done = await waitFor(run.id, ['completed', 'failed']);
    assert.equal(done.status, 'completed');
    const types: string[] = (await log(run.id)).map((e) => e.type);
    assert.ok(types.indexOf('approval_required') < types.indexOf('input_received'));
    assert.ok(types.includes('tool_call'));
  });

  it('a run keeps its own maxSteps after an approval (stored with the run, not held in memory)', async () => {
    const response = await api('/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'order with one step', maxSteps: 1 }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    const run = await json<Run>(response);
    assert.equal(run.settings?.maxSteps, 1);
    const waiting = await waitFor(run.id, ['waiting_approval']);
    const ok = await api(`/v1/runs/${run.id}/input`, {
      method: 'POST',
      body: JSON.stringify({ type: 'approval', toolCallId: waiting.pendingApproval?.toolCallId, decision: 'approve' }),
    });
    assert.equal(ok.status, 202);
    const done = await waitFor(run.id, ['completed', 'failed']);
    assert.equal(done.status, 'failed');
    assert.equal(done.error?.code, 'max_steps');
    assert.equal(done.steps, 1);
    assert.equal(
      (await log(run.id)).filter((e) => e.type === 'tool_result').length,
      1,
      'the approved call ran, then the run stopped at its limit',
    );
  });

  it('strategy and todo in the body: a plan run, stored with its settings, its events over the API', async () => {
    const response = await api('/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'plan a market check', strategy: 'plan', todo: true }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    const created = await json<Run>(response);
    assert.equal(created.settings?.strategy, 'plan');
    assert.equal(created.settings?.todo?.enabled, true);
    const done = await waitFor(created.id, ['completed', 'failed']);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.output, 'planned and done');
    const events = await log(created.id);
    assert.deepEqual(
      events.filter((e) => e.type === 'run_status').map((e) => (e.data as { to: string }).to),
      ['planning', 'executing', 'monitoring', 'completed'],
    );
    assert.ok(events.some((e) => e.type === 'plan_created'));
  });

  it('an escalated run shows as escalated and a message through POST /input carries it on', async () => {
    const response = await api('/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'escalate: wallet of the trader', strategy: 'reflect' }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    const created = await json<Run>(response);
    const escalated = await waitFor(created.id, ['escalated', 'failed', 'completed']);
    assert.equal(escalated.status, 'escalated', JSON.stringify(escalated.error));
    const approve = await api(`/v1/runs/${created.id}/input`, {
      method: 'POST',
      body: JSON.stringify({ type: 'approval', toolCallId: 'x', decision: 'approve' }),
    });
    assert.equal(approve.status, 409, 'an escalated run waits for a message, not a decision');
    const input = await api(`/v1/runs/${created.id}/input`, {
      method: 'POST',
      body: JSON.stringify({ type: 'message', text: 'use bob' }),
    });
    assert.ok(input.status >= 200 && input.status < 300, await input.clone().text());
    const done = await waitFor(created.id, ['completed', 'failed']);
    assert.equal(done.output, 'bob it is');
  });

  it('strategy: an unknown name is 400 naming the known ones', async () => {
    const response = await api('/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'x', strategy: 'no-such-strategy' }),
    });
    assert.equal(response.status, 400);
    const body = await json<{ error: { code: string; message: string } }>(response);
    assert.equal(body.error.code, 'usage');
    assert.match(body.error.message, /known strategies: react/);
  });

  it('cancel stops a run in flight: run_cancelled, status cancelled', async () => {
    const run = await createRun('slow one');
    for (let i = 0; i < 100 && !(await log(run.id)).some((e) => e.type === 'tool_call'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const bad = await api(`/v1/runs/${run.id}/cancel`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'x', force: true }),
    });
    assert.equal(bad.status, 400, 'a body may hold a reason and nothing else');
    const response = await api(`/v1/runs/${run.id}/cancel`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'wrong account' }),
    });
    assert.equal(response.status, 202, await response.clone().text());
    const cancelled = await waitFor(run.id, ['cancelled']);
    assert.equal(cancelled.status, 'cancelled');
    const last = (await log(run.id)).at(-1);
    assert.equal(last?.type, 'run_cancelled');
    assert.equal((last?.data as { reason?: string }).reason, 'wrong account', 'the reason the client gave is recorded');
    assert.equal((await api(`/v1/runs/${run.id}/cancel`, { method: 'POST' })).status, 409);
  });

  it('every response carries X-Request-Id, the id of its log line', async () => {
    const ok = await api('/v1/runs?limit=1');
    assert.match(ok.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{24}$/);
    const missing = await api('/v1/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('x-request-id') ?? '', /^req_/);
    assert.notEqual(missing.headers.get('x-request-id'), ok.headers.get('x-request-id'));
  });

  it('lists runs by status and serves its OpenAPI document', async () => {
    const completed = await json<{ runs: Run[] }>(await api('/v1/runs?status=completed&limit=2'));
    assert.ok(completed.runs.length <= 2 && completed.runs.every((r) => r.status === 'completed'));
    const bad = await api('/v1/runs?status=nope');
    assert.equal(bad.status, 400);
    const doc = await json<{ openapi: string; paths: Record<string, unknown> }>(
      await fetch(`${server.url}/openapi.json`),
    );
    assert.match(doc.openapi, /^3\./);
    for (const path of [
      '/v1/runs',
      '/v1/runs/{id}',
      '/v1/runs/{id}/events',
      '/v1/runs/{id}/input',
      '/v1/runs/{id}/cancel',
      '/v1/tools',
    ])
      assert.ok(path in doc.paths, path);
  });

  it("threads: a second run with the same threadId starts from the first run's conversation", async () => {
    const first = await json<Run>(
      await api('/v1/runs', {
        method: 'POST',
        body: JSON.stringify({ input: 'remember the number 42', threadId: 'th-1' }),
      }),
    );
    await waitFor(first.id, ['completed']);
    const before = mock.requests.length;
    const second = await json<Run>(
      await api('/v1/runs', { method: 'POST', body: JSON.stringify({ input: 'what number?', threadId: 'th-1' }) }),
    );
    await waitFor(second.id, ['completed']);
    const sent =
      mock.requests.slice(before).map((r) => r.body.messages as { role: string; content: string }[])[0] ?? [];
    // The whole first conversation, its tool call and output included, then the new message.
    assert.deepEqual(
      sent.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'user'],
    );
    assert.equal(sent[0]?.content, 'remember the number 42');
    assert.match(sent[2]?.content ?? '', /market metrics/);
    assert.equal(sent[3]?.content, 'Answer to: remember the number 42');
    assert.equal(sent[4]?.content, 'what number?');
    // Another tenant cannot continue acme's thread.
    const peekFrom = mock.requests.length;
    const theirs = await json<Run>(
      await api('/v1/runs', { method: 'POST', key: GLOBEX, body: JSON.stringify({ input: 'peek', threadId: 'th-1' }) }),
    );
    await waitFor(theirs.id, ['completed'], GLOBEX);
    const peek = mock.requests
      .slice(peekFrom)
      .map((r) => JSON.stringify(r.body.messages))
      .join('');
    assert.match(peek, /peek/);
    assert.doesNotMatch(peek, /remember the number 42/);
  });

  it('refuses to listen beyond loopback without API keys, and stops cleanly on SIGTERM', async () => {
    const lonely = mkdtempSync(join(dir, 'nokeys-'));
    writeFileSync(join(lonely, 'toolgate.yaml'), 'server:\n  store: "memory:"\n');
    const refused = await runCli(['serve', '--demo', '--host', '0.0.0.0', '--port', '0'], { cwd: lonely });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /no API keys configured: refusing to listen on 0\.0\.0\.0/);
    const other = await startServe({ cwd: lonely, args: ['--demo'] });
    const busy = await runCli(['serve', '--demo', '--port', new URL(other.url).port], { cwd: lonely });
    assert.equal(busy.code, 2);
    assert.match(busy.stderr, /port \d+ on 127\.0\.0\.1 is already in use; pass --port N/);
    const run = await json<Run>(
      await fetch(`${other.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input":"hello"}',
      }),
    );
    assert.equal(typeof run.id, 'string');
    other.child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => other.child.once('exit', (c) => r(c)));
    assert.equal(code, 0);
    assert.match(other.output(), /stopping: no new runs/);
  });
});
