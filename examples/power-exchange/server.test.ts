// The server over the real protocol: spawned as a process, driven by the official client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { IDEMPOTENCY_META_KEY } from './idempotency.ts';

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));
const SYMBOL = 'DE-BASE-D+1';
const dir = mkdtempSync(join(tmpdir(), 'power-exchange-e2e-'));
const clients: Client[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

after(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function stdioClient(...args: string[]): Promise<Client> {
  const client = new Client({ name: 'power-exchange-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [SERVER, ...args], stderr: 'pipe' }),
  );
  return client;
}

/** Spawns the server with its own stdio, for exit codes and stderr. */
function spawnServer(...args: string[]) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: 'pipe' });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function startHttp(...args: string[]) {
  const server = spawnServer('--http', '0', ...args);
  const url = await new Promise<URL>((resolve, reject) => {
    const onData = () => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(server.stdout());
      if (match?.[1] !== undefined) resolve(new URL(match[1]));
    };
    server.child.stdout.on('data', onData);
    void server.exited.then((code) => reject(new Error(`server exited with ${code}: ${server.stderr()}`)));
  });
  return { ...server, url };
}

async function httpClient(url: URL, modern = false): Promise<Client> {
  const client = new Client(
    { name: 'power-exchange-test', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  key?: string,
): Promise<CallToolResult> {
  const params =
    key === undefined ? { name, arguments: args } : { name, arguments: args, _meta: { [IDEMPOTENCY_META_KEY]: key } };
  return client.callTool(params);
}

function data(result: CallToolResult): Record<string, unknown> {
  assert.notEqual(result.isError, true, `unexpected tool error: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent !== undefined && typeof result.structuredContent === 'object');
  return result.structuredContent as Record<string, unknown>;
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

const buy = (userId: string, qty = 3) => ({ userId, side: 'BUY', price: 87, qty, symbol: SYMBOL });

describe('power-exchange over stdio', () => {
  it('lists the tools with honest annotations', async () => {
    const client = await stdioClient();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual([...byName.keys()].sort(), [
      'cancelOrder',
      'checkUserExists',
      'getMarketMetrics',
      'getOrderBook',
      'getServerStats',
      'getUserOrders',
      'getUserWallet',
      'placeOrder',
      'registerUser',
    ]);
    for (const name of [
      'getOrderBook',
      'getMarketMetrics',
      'getUserWallet',
      'getUserOrders',
      'checkUserExists',
      'getServerStats',
    ]) {
      assert.deepEqual(byName.get(name)?.annotations, { readOnlyHint: true, openWorldHint: false }, name);
    }
    assert.deepEqual(byName.get('placeOrder')?.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get('cancelOrder')?.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get('registerUser')?.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get('placeOrder')?.inputSchema.required, ['userId', 'side', 'price', 'qty', 'symbol']);
  });

  it('places a matching order and the wallet shows the trade', async () => {
    const client = await stdioClient();
    const before = data(await call(client, 'getUserWallet', { userId: 'bob' }));
    const placed = data(await call(client, 'placeOrder', buy('bob')));
    assert.deepEqual(
      (placed['trades'] as { price: number; sellerId: string }[]).map((t) => [t.price, t.sellerId]),
      [[86.5, 'alice']],
    );
    const after = data(await call(client, 'getUserWallet', { userId: 'bob' }));
    assert.equal(after['energyMWh'], (before['energyMWh'] as number) + 3);
    assert.equal(after['cash'], (before['cash'] as number) - 259.5);
    assert.equal(data(await call(client, 'getMarketMetrics', { symbol: SYMBOL }))['lastPrice'], 86.5);
  });

  it('answers an unknown user with isError and what to do', async () => {
    const client = await stdioClient();
    const result = await call(client, 'placeOrder', buy('zed'));
    assert.equal(result.isError, true);
    assert.match(text(result), /user 'zed' does not exist; call registerUser first/);
    assert.deepEqual(data(await call(client, 'checkUserExists', { userId: 'zed' })), { userId: 'zed', exists: false });
  });

  it('executes a write once per idempotency key', async () => {
    const client = await stdioClient();
    const first = await call(client, 'placeOrder', buy('bob', 1), 'run-1:call-1');
    const second = await call(client, 'placeOrder', buy('bob', 1), 'run-1:call-1');
    assert.deepEqual(second.structuredContent, first.structuredContent);
    await call(client, 'placeOrder', buy('bob', 1), 'run-1:call-2');
    const stats = data(await call(client, 'getServerStats'));
    assert.deepEqual(stats['executed'], { placeOrder: 2 });
    assert.deepEqual(stats['received'], { placeOrder: 3, getServerStats: 1 });
    assert.equal(stats['deduplicated'], 1);
  });

  it('keeps users, orders and idempotency keys across a restart with --state', async () => {
    const path = join(dir, 'venue.json');
    const first = await stdioClient('--state', path);
    data(await call(first, 'registerUser', { userId: 'carol', name: 'Carol' }));
    const placed = data(
      await call(
        first,
        'placeOrder',
        { userId: 'carol', side: 'SELL', price: 99, qty: 2, symbol: SYMBOL },
        'run-7:call-1',
      ),
    );
    await first.close();

    const second = await stdioClient('--state', path);
    assert.deepEqual(data(await call(second, 'checkUserExists', { userId: 'carol' })), {
      userId: 'carol',
      exists: true,
    });
    const orders = data(await call(second, 'getUserOrders', { userId: 'carol', status: 'open' }));
    assert.deepEqual(orders['orders'], [placed['order']]);
    await call(
      second,
      'placeOrder',
      { userId: 'carol', side: 'SELL', price: 99, qty: 2, symbol: SYMBOL },
      'run-7:call-1',
    );
    const stats = data(await call(second, 'getServerStats'));
    assert.deepEqual(stats['executed'], { checkUserExists: 1, getUserOrders: 1 });
    assert.equal(stats['deduplicated'], 1);
    assert.equal((JSON.parse(readFileSync(path, 'utf8')) as { version: number }).version, 1);
  });

  it('refuses a corrupt state file with exit code 2', async () => {
    const path = join(dir, 'corrupt.json');
    writeFileSync(path, '{"version": 1, "exchange": ');
    const server = spawnServer('--state', path);
    assert.equal(await server.exited, 2);
    assert.match(server.stderr(), /state file .*corrupt\.json is not valid JSON/);
  });

  it('refuses bad options with exit code 2 and the usage', async () => {
    const server = spawnServer('--delay', 'placeOrder');
    assert.equal(await server.exited, 2);
    assert.match(server.stderr(), /expected TOOL=MS[\s\S]*usage: node examples\/power-exchange\/server\.ts/);
  });

  it('--delay holds the answer back; a retry with the same key gets the first result', async () => {
    const client = await stdioClient('--delay', 'placeOrder=1500');
    await assert.rejects(
      client.callTool(
        { name: 'placeOrder', arguments: buy('bob', 1), _meta: { [IDEMPOTENCY_META_KEY]: 'run-9:call-1' } },
        { timeout: 100 },
      ),
      /timed out/i,
    );
    const retried = await call(client, 'placeOrder', buy('bob', 1), 'run-9:call-1');
    assert.equal((retried.structuredContent as { order: { qty: number } }).order.qty, 1);
    const stats = data(await call(client, 'getServerStats'));
    assert.deepEqual(stats['executed'], { placeOrder: 1 });
    assert.equal(stats['deduplicated'], 1);
  });

  it('--exit-on drops the connection and the client sees an error', async () => {
    const client = await stdioClient('--exit-on', 'cancelOrder');
    data(await call(client, 'getOrderBook'));
    const closed = new Promise<void>((resolve) => {
      client.onclose = () => resolve();
    });
    await assert.rejects(call(client, 'cancelOrder', { orderId: 'ord-1' }));
    await closed;
  });

  it('--fail-on turns the tool into an isError result', async () => {
    const client = await stdioClient('--fail-on', 'getOrderBook');
    const result = await call(client, 'getOrderBook', { depth: 3 });
    assert.equal(result.isError, true);
    assert.match(text(result), /injected failure.*--fail-on getOrderBook/);
    assert.equal(data(await call(client, 'getMarketMetrics'))['symbol'], SYMBOL);
  });

  it('exits cleanly when stdin closes', async () => {
    const server = spawnServer();
    server.child.stdin.end();
    assert.equal(await server.exited, 0);
    assert.equal(server.stdout(), '');
  });
});

describe('power-exchange over Streamable HTTP', () => {
  it('serves two clients one after the other on the same venue, in both protocol eras', async () => {
    const server = await startHttp();
    const first = await httpClient(server.url);
    data(await call(first, 'registerUser', { userId: 'dave' }));
    data(await call(first, 'placeOrder', buy('dave', 2), 'run-3:call-1'));
    await first.close();

    const second = await httpClient(server.url, true);
    const wallet = data(await call(second, 'getUserWallet', { userId: 'dave' }));
    assert.equal(wallet['energyMWh'], 102);
    await call(second, 'placeOrder', buy('dave', 2), 'run-3:call-1');
    const stats = data(await call(second, 'getServerStats'));
    assert.deepEqual(stats['executed'], { registerUser: 1, placeOrder: 1, getUserWallet: 1 });
    assert.equal(stats['deduplicated'], 1);
    await second.close();
  });

  it('--exit-on ends the process with code 1 and fails the call', async () => {
    const server = await startHttp('--exit-on', 'placeOrder');
    const client = await httpClient(server.url);
    await assert.rejects(call(client, 'placeOrder', buy('bob')));
    assert.equal(await server.exited, 1);
    assert.match(server.stderr(), /--exit-on placeOrder: exiting with code 1/);
  });

  it('refuses a browser request from a foreign origin on a loopback host', async () => {
    const server = await startHttp();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://attacker.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(response.status, 403);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const server = await startHttp();
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });
});
