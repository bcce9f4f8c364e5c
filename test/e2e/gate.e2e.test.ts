// The execution gate end to end against real MCP server processes: the
// power-exchange example and the official server-filesystem.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Toolgate, type ToolgateOptions } from '../../src/app/toolgate.ts';
import type { ServerConfig, ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { JsonObject, RunEvent } from '../../src/core/index.ts';
import { callIdOf, ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

const FILESYSTEM_SERVER = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);
const PAGINATED_SERVER = fileURLToPath(new URL('../fixtures/mcp/paginated-server.ts', import.meta.url));
const exchange = (...extra: string[]): ServerConfig => ({
  command: process.execPath,
  args: [POWER_EXCHANGE_SERVER, ...extra],
});

describe('gate e2e', () => {
  let mock: MockOpenAI;
  let dir: string;
  const open: Toolgate[] = [];
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-gate-'));
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function toolgate(
    servers: Record<string, ServerConfig>,
    config: Partial<ToolgateConfig> = {},
    extra: Partial<ToolgateOptions> = {},
  ): Toolgate {
    const settings = resolveSettings(
      {
        model: 'openai:m',
        providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
        servers,
        ...config,
      },
      {},
      {},
    );
    const t = new Toolgate({ settings, ...extra });
    open.push(t);
    return t;
  }

  async function events(t: Toolgate, runId: string): Promise<RunEvent[]> {
    return t.store.readEvents(runId);
  }

  const placeOrder = (args: JsonObject) => ({
    toolCalls: [{ id: 'po', name: 'placeOrder', arguments: JSON.stringify(args) }],
  });

  it('"7,000" reaches placeOrder as 7000 and a lower-case side as "BUY", both recorded as normalisations', async () => {
    const t = toolgate({ 'power-exchange': exchange() }, { tools: { 'power-exchange/*': { approval: 'never' } } });
    mock.enqueue(placeOrder({ userId: 'bob', side: 'buy', price: '1,500', qty: '7,000', symbol: 'DE-BASE-D+1' }), {
      text: 'done',
    });
    const run = await t.run({ input: 'buy' });
    const log = await events(t, run.id);
    assert.deepEqual(ofType(log, 'tool_call')[0]?.data.arguments, {
      userId: 'bob',
      side: 'BUY',
      price: 1500,
      qty: 7000,
      symbol: 'DE-BASE-D+1',
    });
    const rules = ofType(log, 'gate_decision')[0]?.data.normalisations.map((n) => [n.path, n.from, n.to]);
    assert.deepEqual(rules?.sort(), [
      ['/price', '1,500', 1500],
      ['/qty', '7,000', 7000],
      ['/side', 'buy', 'BUY'],
    ]);
  });

  it('a missing required argument is fed back, never sent, and fixed on the retry', async () => {
    const t = toolgate(
      { 'power-exchange': exchange() },
      { tools: { 'power-exchange/placeOrder': { approval: 'never' } } },
    );
    const first = mock.requests.length;
    mock.enqueue(
      placeOrder({ userId: 'bob', price: 80, qty: 1, symbol: 'DE-BASE-D+1' }),
      {
        toolCalls: [
          {
            id: 'po2',
            name: 'placeOrder',
            arguments: '{"userId":"bob","side":"BUY","price":80,"qty":1,"symbol":"DE-BASE-D+1"}',
          },
        ],
      },
      { toolCalls: [{ id: 'st', name: 'getServerStats', arguments: '{}' }] },
      { text: 'ok' },
    );
    const run = await t.run({ input: 'buy' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const log = await events(t, run.id);
    const decisions = ofType(log, 'gate_decision').map((e) => e.data.decision);
    assert.deepEqual(decisions.slice(0, 2), ['invalid', 'allowed']);
    const feedback =
      (mock.requests[first + 1]?.body as { messages: { role: string; content: string }[] }).messages.at(-1)?.content ??
      '';
    assert.match(feedback, /side: missing, but required; expected one of "BUY", "SELL"/);
    const stats = ofType(log, 'tool_result')[2]?.data.structuredContent as { executed: Record<string, number> };
    assert.equal(stats.executed['placeOrder'], 1, 'only the corrected call reached the server');
  });

  it('dry-run leaves the file system and the order book untouched; reads still run', async () => {
    const fsDir = mkdtempSync(join(dir, 'fs-'));
    const t = toolgate({
      'power-exchange': exchange(),
      fs: { command: process.execPath, args: [FILESYSTEM_SERVER, fsDir] },
    });
    mock.enqueue(
      {
        toolCalls: [
          {
            id: 'w',
            name: 'write_file',
            arguments: JSON.stringify({ path: join(fsDir, 'plan.txt'), content: 'hello' }),
          },
          {
            id: 'o',
            name: 'placeOrder',
            arguments: '{"userId":"bob","side":"BUY","price":90,"qty":2,"symbol":"DE-BASE-D+1"}',
          },
          { id: 'r', name: 'list_allowed_directories', arguments: '{}' },
          { id: 's', name: 'getServerStats', arguments: '{}' },
        ],
      },
      { text: 'That is the plan.' },
    );
    const run = await t.run({ input: 'plan it', dryRun: true });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(existsSync(join(fsDir, 'plan.txt')), false, 'no file was written');
    const log = await events(t, run.id);
    assert.deepEqual(
      ofType(log, 'gate_decision')
        .map((e) => [e.data.name, e.data.decision])
        .sort(),
      [
        ['getServerStats', 'allowed'],
        ['list_allowed_directories', 'allowed'],
        ['placeOrder', 'dry_run'],
        ['write_file', 'dry_run'],
      ],
    );
    assert.deepEqual(
      ofType(log, 'tool_call')
        .map((e) => e.data.name)
        .sort(),
      ['getServerStats', 'list_allowed_directories'],
    );
    const dry = ofType(log, 'tool_result').find((e) => e.data.name === 'placeOrder');
    assert.equal(dry?.data.dryRun, true);
    assert.match(JSON.stringify(dry?.data.content), /would have run/);
    const stats = ofType(log, 'tool_result').find((e) => e.data.name === 'getServerStats')?.data.structuredContent as {
      received: Record<string, number>;
    };
    assert.equal(stats.received['placeOrder'] ?? 0, 0, 'the exchange never saw the order');
  });

  it('approval: approve runs the write, reject tells the model why, edit re-validates the new arguments', async () => {
    const fsDir = mkdtempSync(join(dir, 'fs-'));
    const t = toolgate({ fs: { command: process.execPath, args: [FILESYSTEM_SERVER, fsDir] } });
    const write = (id: string, name: string, content: string) => ({
      toolCalls: [{ id, name: 'write_file', arguments: JSON.stringify({ path: join(fsDir, name), content }) }],
    });

    mock.enqueue(write('a1', 'approved.txt', 'yes'), { text: 'written' });
    let run = await t.run({ input: 'write' });
    assert.equal(run.status, 'waiting_approval');
    assert.equal(run.pendingApproval?.toolCallId, callIdOf(await events(t, run.id), 'a1'));
    assert.equal(run.pendingApproval?.effect, 'write');
    assert.equal(existsSync(join(fsDir, 'approved.txt')), false, 'nothing happens before the decision');
    const waitingLog = await events(t, run.id);
    assert.equal(waitingLog.at(-1)?.type, 'approval_required');
    run = await t.submitInput(run.id, {
      type: 'approval',
      toolCallId: run.pendingApproval?.toolCallId ?? '',
      decision: 'approve',
      userId: 'ops',
    });
    assert.equal(run.status, 'completed');
    assert.equal(readFileSync(join(fsDir, 'approved.txt'), 'utf8'), 'yes');

    const first = mock.requests.length;
    mock.enqueue(write('r1', 'rejected.txt', 'no'), { text: 'ok, not written' });
    run = await t.run({ input: 'write' });
    run = await t.submitInput(run.id, {
      type: 'approval',
      toolCallId: run.pendingApproval?.toolCallId ?? '',
      decision: 'reject',
      reason: 'wrong folder',
    });
    assert.equal(run.status, 'completed');
    assert.equal(existsSync(join(fsDir, 'rejected.txt')), false);
    const told =
      (mock.requests[first + 1]?.body as { messages: { role: string; content: string }[] }).messages.at(-1)?.content ??
      '';
    assert.match(told, /rejected.*wrong folder/);

    mock.enqueue(write('e1', 'draft.txt', 'first'), { text: 'edited and written' });
    run = await t.run({ input: 'write' });
    await assert.rejects(
      t.submitInput(run.id, { type: 'approval', toolCallId: 'nope', decision: 'approve' }),
      (e: unknown) => e instanceof Error && 'code' in e && e.code === 'conflict',
    );
    run = await t.submitInput(run.id, {
      type: 'approval',
      toolCallId: run.pendingApproval?.toolCallId ?? '',
      decision: 'edit',
      arguments: { path: join(fsDir, 'final.txt'), content: 'edited' },
    });
    assert.equal(run.status, 'completed');
    assert.equal(readFileSync(join(fsDir, 'final.txt'), 'utf8'), 'edited');
    assert.equal(existsSync(join(fsDir, 'draft.txt')), false);
  });

  it('an edit with invalid arguments is refused, not executed', async () => {
    const fsDir = mkdtempSync(join(dir, 'fs-'));
    const t = toolgate({ fs: { command: process.execPath, args: [FILESYSTEM_SERVER, fsDir] } });
    mock.enqueue(
      {
        toolCalls: [
          { id: 'x1', name: 'write_file', arguments: JSON.stringify({ path: join(fsDir, 'a.txt'), content: 'a' }) },
        ],
      },
      { text: 'could not' },
    );
    let run = await t.run({ input: 'write' });
    run = await t.submitInput(run.id, {
      type: 'approval',
      toolCallId: run.pendingApproval?.toolCallId ?? '',
      decision: 'edit',
      arguments: { path: join(fsDir, 'a.txt') },
    });
    const log = await events(t, run.id);
    assert.equal(ofType(log, 'tool_result').at(-1)?.data.error?.code, 'invalid_arguments');
    assert.equal(existsSync(join(fsDir, 'a.txt')), false);
  });

  it('an unannotated tool is treated as a write (approval required)', async () => {
    const t = toolgate({ paged: { command: process.execPath, args: [PAGINATED_SERVER] } });
    const tools = await t.listClassifiedTools();
    assert.ok(tools.every((x) => x.effect === 'write' && x.effectSource === 'default'));
    mock.enqueue({ toolCalls: [{ id: 'u1', name: 'tool_1', arguments: '{}' }] });
    const run = await t.run({ input: 'go' });
    assert.equal(run.status, 'waiting_approval');
    assert.equal(run.pendingApproval?.name, 'tool_1');
  });

  it("an injected userId overrides the model's and is hidden from the model", async () => {
    const first = mock.requests.length;
    const t = toolgate(
      { 'power-exchange': exchange() },
      { tools: { 'power-exchange/getUserWallet': { inject: { userId: '{{user.id}}' } } } },
    );
    mock.enqueue({ toolCalls: [{ id: 'g', name: 'getUserWallet', arguments: '{"userId": "alice"}' }] }, { text: 'ok' });
    const run = await t.run({ input: 'my wallet', userId: 'bob' });
    const log = await events(t, run.id);
    assert.deepEqual(ofType(log, 'tool_call')[0]?.data.arguments, { userId: 'bob' });
    assert.deepEqual(ofType(log, 'gate_decision')[0]?.data.injected, [{ key: 'userId', overridden: true }]);
    const offered = (
      mock.requests[first]?.body as {
        tools: { function: { name: string; parameters: { properties: object; required?: string[] } } }[];
      }
    ).tools;
    const wallet = offered.find((x) => x.function.name === 'getUserWallet');
    assert.deepEqual(Object.keys(wallet?.function.parameters.properties ?? {}), [], 'the model never sees userId');
    assert.match(JSON.stringify(ofType(log, 'tool_result')[0]?.data.structuredContent), /bob/);
  });

  it('a denied tool is hidden from the tenant and a hallucinated call to it is refused', async () => {
    const first = mock.requests.length;
    const t = toolgate(
      { 'power-exchange': exchange() },
      {
        tenants: { acme: { allow: ['power-exchange/*'], deny: ['power-exchange/cancelOrder'] } },
        tools: { 'power-exchange/*': { approval: 'never' } },
      },
    );
    assert.equal(
      (await t.listClassifiedTools('acme')).some((x) => x.name === 'cancelOrder'),
      false,
    );
    assert.equal(
      (await t.listClassifiedTools('other')).some((x) => x.name === 'cancelOrder'),
      true,
    );
    mock.enqueue(
      { toolCalls: [{ id: 'c', name: 'cancelOrder', arguments: '{"orderId":"ord-1"}' }] },
      { text: 'cannot' },
    );
    const run = await t.run({ input: 'cancel', tenantId: 'acme' });
    const offered = (mock.requests[first]?.body as { tools: { function: { name: string } }[] }).tools.map(
      (x) => x.function.name,
    );
    assert.equal(offered.includes('cancelOrder'), false);
    const log = await events(t, run.id);
    assert.equal(ofType(log, 'tool_result')[0]?.data.error?.code, 'denied');
    assert.equal(ofType(log, 'gate_decision')[0]?.data.decision, 'denied');
    assert.equal(ofType(log, 'tool_call').length, 0);
  });

  it('a timeout is isolated: the slow call fails with tool_timeout, the other call of the turn succeeds', async () => {
    const t = toolgate(
      { 'power-exchange': exchange('--delay', 'getOrderBook=3000') },
      { tools: { 'power-exchange/getOrderBook': { timeoutMs: 300 } } },
    );
    mock.enqueue(
      {
        toolCalls: [
          { id: 'slow', name: 'getOrderBook', arguments: '{}' },
          { id: 'fast', name: 'getMarketMetrics', arguments: '{}' },
        ],
      },
      { text: 'partial' },
    );
    const run = await t.run({ input: 'both' });
    assert.equal(run.status, 'completed');
    const log = await events(t, run.id);
    const results = ofType(log, 'tool_result');
    assert.equal(results.find((r) => r.data.toolCallId === callIdOf(log, 'slow'))?.data.error?.code, 'tool_timeout');
    assert.equal(results.find((r) => r.data.toolCallId === callIdOf(log, 'fast'))?.data.ok, true);
  });

  it('hooks: beforeToolCall can deny or rewrite (audited); onRunStart/onRunEnd run once', async () => {
    const seen: string[] = [];
    const t = toolgate(
      { 'power-exchange': exchange() },
      { tools: { 'power-exchange/*': { approval: 'never' } } },
      {
        hooks: {
          onRunStart: (r) => void seen.push(`start:${r.id}`),
          onRunEnd: (r) => void seen.push(`end:${r.status}`),
          beforeToolCall: (call) => {
            if (call.name === 'cancelOrder') return { action: 'deny', reason: 'cancellations are closed today' };
            if (call.name === 'getUserWallet' && call.arguments['userId'] === 'ghost')
              return { action: 'rewrite', arguments: { userId: 'alice' }, reason: 'unknown user mapped to alice' };
            return undefined;
          },
        },
      },
    );
    mock.enqueue(
      {
        toolCalls: [
          { id: 'c', name: 'cancelOrder', arguments: '{"orderId":"ord-1"}' },
          { id: 'w', name: 'getUserWallet', arguments: '{"userId":"ghost"}' },
        ],
      },
      { text: 'ok' },
    );
    const run = await t.run({ input: 'x' });
    const log = await events(t, run.id);
    const gate = ofType(log, 'gate_decision');
    assert.deepEqual(gate.find((g) => g.data.name === 'cancelOrder')?.data.hook, {
      name: 'beforeToolCall',
      action: 'deny',
      reason: 'cancellations are closed today',
    });
    assert.equal(gate.find((g) => g.data.name === 'getUserWallet')?.data.hook?.action, 'rewrite');
    assert.deepEqual(
      ofType(log, 'tool_call').map((e) => e.data.arguments),
      [{ userId: 'alice' }],
    );
    assert.deepEqual(seen, [`start:${run.id}`, 'end:completed']);
  });

  it('secrets in arguments are redacted in events', async () => {
    const fsDir = mkdtempSync(join(dir, 'fs-'));
    writeFileSync(join(fsDir, 'x.txt'), 'x');
    const t = toolgate(
      { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, fsDir] } },
      { tools: { 'fs/*': { approval: 'never' } }, redact: ['content'] },
    );
    mock.enqueue(
      {
        toolCalls: [
          {
            id: 's',
            name: 'write_file',
            arguments: JSON.stringify({ path: join(fsDir, 'secret.txt'), content: 'hunter2' }),
          },
        ],
      },
      { text: 'ok' },
    );
    const run = await t.run({ input: 'x' });
    const log = await events(t, run.id);
    assert.equal(readFileSync(join(fsDir, 'secret.txt'), 'utf8'), 'hunter2', 'the tool got the real value');
    assert.equal(ofType(log, 'tool_call')[0]?.data.arguments['content'], '[redacted]');
    assert.doesNotMatch(JSON.stringify(log.filter((e) => e.type !== 'assistant_message')), /hunter2/);
  });
});
