// A hostile MCP server's output (test/fixtures/mcp/hostile-output-server.ts),
// over stdio and Streamable HTTP (JSON and SSE answers), behind a real
// `toolgate gateway` reached by the official SDK client, and in the runs of a
// real `toolgate serve`: a result of hundreds of megabytes is cut while it is
// read (the gateway's memory stays bounded), the connection is not dropped and
// the other calls on it go on; a result nested too deep is refused at once with
// a clear error; resources/read is cut the same way and counts in the rate limit.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { connectHttp, eventually, startGateway, textOf, type RunningGateway } from '../support/gateway.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { startServe, stopProcess, type StartedProcess } from '../support/processes.ts';

const HOSTILE = fileURLToPath(new URL('../fixtures/mcp/hostile-output-server.ts', import.meta.url));
const MiB = 1024 * 1024;
/** The flood the gateway's memory is measured against (200+ MB). */
const FLOOD_BYTES = 200 * MiB;
/**
 * Floods that only need to be larger than what is read of one message (4 MiB) and than the SDK's own 10 MB stdio limit.
 */
const LARGE_BYTES = 12 * MiB;
/**
 * Growth of the gateway's peak memory allowed while the flood passes: holding the result would take at least its 200
 * MiB.
 */
const MEMORY_GROWTH_BOUND = 128 * MiB;

/** The peak resident memory of a process so far (VmHWM), in bytes. */
function peakMemory(pid: number | undefined): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** The hostile server over Streamable HTTP; resolves with its URL. */
async function startHttpServer(sse: boolean): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [HOSTILE, '--http', ...(sse ? ['--sse'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /at (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the hostile HTTP server exited with ${code}`)));
  });
  return { child, url };
}

const pidOf = (text: string): string => /\(pid (\d+)\)/.exec(text)?.[1] ?? `no pid in ${text}`;
const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * Names of the tools behind the main gateway: three servers offer the same ones, so each is prefixed with its server.
 */
const tool = (server: 'stdio' | 'json' | 'sse', name: 'flood' | 'deep' | 'echo'): string => `${server}_${name}`;
const READER_KEY = 'reader-key-0123456789';

describe('hostile tool output', { timeout: 120_000 }, () => {
  let dir: string;
  const http: { child: ChildProcess; url: string }[] = [];
  /** Three servers (stdio, HTTP answering JSON, HTTP answering SSE), no limits set. */
  let gateway: RunningGateway;
  let client: Client;
  /** One server, a tenant rate limit of two calls. */
  let limited: RunningGateway;
  let mock: MockOpenAI;
  /** Runs with maxResultBytes: 65536. */
  let serve: StartedProcess & { url: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-'));
    http.push(...(await Promise.all([startHttpServer(false), startHttpServer(true)])));
    // One turn calls all three tools at once, the next one answers.
    mock = await startMockOpenAI({
      handler: (request: RecordedRequest) => {
        const turn = (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
        if (turn > 0) return { text: 'done' };
        return {
          toolCalls: [
            { id: 'f1', name: 'flood', arguments: JSON.stringify({ bytes: LARGE_BYTES }) },
            { id: 'd1', name: 'deep', arguments: JSON.stringify({ depth: 100 }) },
            { id: 'e1', name: 'echo', arguments: JSON.stringify({ text: 'hi' }) },
          ],
        };
      },
    });
    const node = JSON.stringify(process.execPath);
    const stdioServer = ['  stdio:', `    command: ${node}`, `    args: [${JSON.stringify(HOSTILE)}]`];
    const write = (name: string, lines: string[]): string => {
      writeFileSync(join(dir, name), [...lines, ''].join('\n'));
      return join(dir, name);
    };
    const main = write('gateway.yaml', [
      'servers:',
      ...stdioServer,
      '  json:',
      `    url: ${http[0]?.url}`,
      '  sse:',
      `    url: ${http[1]?.url}`,
    ]);
    const rated = write('limited.yaml', [
      'servers:',
      ...stdioServer,
      'tenants:',
      '  reader:',
      `    apiKeys: [${READER_KEY}]`,
      'gateway:',
      '  rateLimits:',
      '    tenant: { calls: 2, perSeconds: 600 }',
    ]);
    mkdirSync(join(dir, 'runs'));
    write('runs/toolgate.yaml', [
      'model: openai:mock',
      'providers:',
      `  openai: { baseUrl: ${JSON.stringify(mock.url)}, apiKey: test, maxRetries: 0 }`,
      'maxResultBytes: 65536',
      'servers:',
      ...stdioServer,
      'server:',
      `  store: ${JSON.stringify(`sqlite:${join(dir, 'runs', 'runs.db')}`)}`,
    ]);
    // Started side by side: each takes seconds on a busy machine.
    [gateway, limited, serve] = await Promise.all([
      startGateway({ config: main, store: 'memory:', cwd: dir }),
      startGateway({ config: rated, store: 'memory:', cwd: dir }),
      startServe({ cwd: join(dir, 'runs') }),
    ]);
    ({ client } = await connectHttp(gateway));
  });

  after(async () => {
    await client?.close();
    await Promise.all([
      gateway?.stop(),
      limited?.stop(),
      serve?.stop(),
      mock?.close(),
      ...http.map((server) => stopProcess(server.child)),
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'cuts a 200 MB result while it reads it: bounded ' + 'memory, the connection kept, the call beside it answered',
    async () => {
      const first = await client.callTool({ name: tool('stdio', 'echo'), arguments: { text: 'before' } });
      const pid = pidOf(textOf(first));
      // A result of a few MB (read whole, then cut to the limit) grows the heap once, whatever comes after: measured
      // from
      // there.
      const warmUp = await client.callTool({ name: tool('stdio', 'flood'), arguments: { bytes: 3 * MiB } });
      assert.match(textOf(warmUp), /over the gateway's limit of 1048576\]$/);
      const before = peakMemory(gateway.child.pid);
      const started = Date.now();
      const [flood, beside] = await Promise.all([
        client.callTool({ name: tool('stdio', 'flood'), arguments: { bytes: FLOOD_BYTES } }, { timeout: 60_000 }),
        client.callTool({ name: tool('stdio', 'echo'), arguments: { text: 'beside' } }, { timeout: 60_000 }),
      ]);
      const growth = peakMemory(gateway.child.pid) - before;
      assert.ok(
        growth < MEMORY_GROWTH_BOUND,
        `the gateway's peak memory grew by ${Math.round(growth / MiB)} ` +
          `MiB while a ${FLOOD_BYTES / MiB} MiB result passed`,
      );
      assert.notEqual(flood.isError, true, textOf(flood));
      const note = textOf(flood).split('\n').at(-1) ?? '';
      const bytes = Number(/the result was (\d+) bytes, over the gateway's limit of 1048576\]$/.exec(note)?.[1]);
      assert.match(note, /^\[toolgate: only its first part was read, the text was cut; /);
      assert.ok(bytes > FLOOD_BYTES, `the note names the whole size (${bytes})`);
      assert.ok(sizeOf(flood.content) <= MiB, 'the client gets at most the limit');
      assert.match(textOf(flood), /^a{1000}/);
      // The call sent beside it, and the next one, are answered by the same server process: nothing was dropped or
      // restarted.
      assert.equal(pidOf(textOf(beside)), pid);
      const next = await client.callTool({ name: tool('stdio', 'echo'), arguments: { text: 'after' } });
      assert.equal(pidOf(textOf(next)), pid);
      assert.ok(Date.now() - started < 60_000);
    },
  );

  it(
    'cuts a large result from an HTTP server, answered ' + 'as JSON or as an event stream, and the server goes on',
    async () => {
      for (const server of ['json', 'sse'] as const) {
        const flood = await client.callTool(
          { name: tool(server, 'flood'), arguments: { bytes: LARGE_BYTES } },
          { timeout: 60_000 },
        );
        assert.notEqual(flood.isError, true, `${server}: ${textOf(flood)}`);
        assert.match(
          textOf(flood),
          new RegExp(
            String.raw`\[toolgate: only its first part was read, the text was cut; th` +
              String.raw`e result was \d+ bytes, over the gateway's limit of 1048576\]$`,
          ),
          server,
        );
        assert.ok(sizeOf(flood.content) <= MiB, server);
        const echo = await client.callTool({ name: tool(server, 'echo'), arguments: { text: 'after' } });
        assert.match(textOf(echo), /^echo: after \(pid \d+\)$/, server);
      }
    },
  );

  it(
    'refuses a result nested deeper than the shape ' + 'limit at once, with a clear error, on every transport',
    async () => {
      for (const server of ['stdio', 'json', 'sse'] as const) {
        const started = Date.now();
        const deep = await client.callTool(
          { name: tool(server, 'deep'), arguments: { depth: 100 } },
          { timeout: 30_000 },
        );
        const took = Date.now() - started;
        assert.equal(deep.isError, true, server);
        assert.match(
          textOf(deep),
          /the server's answer nests deeper than 64 levels, the limit for tool output; it was refused/,
          server,
        );
        assert.ok(took < 5_000, `${server}: answered in ${took} ms, not at the 30 s timeout`);
        const shallow = await client.callTool({ name: tool(server, 'deep'), arguments: { depth: 60 } });
        assert.notEqual(shallow.isError, true, `${server}: within the limit is fine`);
      }
    },
  );

  it('cuts a resource too large to read whole, and the server goes on', async () => {
    const uri = `hostile://flood/${LARGE_BYTES}`;
    const read = await client.readResource({ uri }, { timeout: 60_000 });
    assert.ok(sizeOf(read.contents) <= MiB, 'the client gets at most the limit');
    const texts = (read.contents as { uri: string; text?: string }[]).map((c) => c.text ?? '');
    assert.match(texts[0] ?? '', /^a{1000}.*…$/s);
    assert.match(
      texts.at(-1) ?? '',
      new RegExp(
        String.raw`^\[toolgate: only its first part was read, the text was cut; th` +
          String.raw`e resource was \d+ bytes, over the gateway's limit of 1048576\]$`,
      ),
    );
    const truncated = read._meta?.['toolgate/truncated'] as { bytes: number; limit: number };
    assert.equal(truncated.limit, MiB);
    assert.ok(truncated.bytes > LARGE_BYTES);
    const small = await client.readResource({ uri: 'hostile://small' });
    assert.equal((small.contents[0] as { text?: string }).text, 'a small resource');
  });

  it('resources/read counts in the tenant rate limit (gateway.rateLimits.tenant), with the calls', async () => {
    const { client: reader } = await connectHttp(limited, { key: READER_KEY });
    try {
      for (let i = 0; i < 2; i++)
        assert.equal(
          ((await reader.readResource({ uri: 'hostile://small' })).contents[0] as { text?: string }).text,
          'a small resource',
        );
      await assert.rejects(
        reader.readResource({ uri: 'hostile://small' }),
        /rate limit: tenant "reader" may make 2 calls per 600 s; retry in \d+ s/,
      );
      const call = await reader.callTool({ name: 'echo', arguments: { text: 'x' } });
      assert.equal(call.isError, true);
      assert.match(textOf(call), /rate limit: tenant "reader"/);
    } finally {
      await reader.close();
    }
  });

  it(
    'a run gets the flood cut to maxResultBytes, the ' + 'deep result refused at once, the echo, and completes',
    async () => {
      const created = await fetch(`${serve.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'go' }),
      });
      assert.equal(created.status, 201, await created.clone().text());
      const { id } = (await created.json()) as Run;
      const run = await eventually(
        async () => {
          const current = (await (await fetch(`${serve.url}/v1/runs/${id}`)).json()) as Run;
          return ['queued', 'running'].includes(current.status) ? undefined : current;
        },
        60_000,
        'the run to end',
      );
      assert.equal(run.status, 'completed', JSON.stringify(run));
      const { events } = (await (await fetch(`${serve.url}/v1/runs/${id}/events?format=json`)).json()) as {
        events: RunEvent[];
      };
      const results = new Map(ofType(events, 'tool_result').map((e) => [e.data.name, e.data]));

      const flood = results.get('flood');
      assert.equal(flood?.ok, true);
      assert.equal(flood?.truncated?.limit, 65536);
      assert.ok((flood?.truncated?.bytes ?? 0) > LARGE_BYTES, `the size before: ${flood?.truncated?.bytes}`);
      assert.ok(sizeOf({ content: flood?.content }) <= 65536, 'what is recorded is within the limit');
      const note = flood?.content.at(-1);
      assert.match(
        note?.type === 'text' ? note.text : '',
        new RegExp(
          String.raw`^\[toolgate: only its first part was read, the text was cut; the r` +
            String.raw`esult was \d+ bytes, over the limit \(maxResultBytes\) of 65536\]$`,
        ),
      );

      const deep = results.get('deep');
      assert.equal(deep?.ok, false);
      assert.equal(deep?.error?.code, 'tool_error');
      assert.match(
        deep?.error?.message ?? '',
        new RegExp(
          String.raw`^tool "deep" on MCP server "stdio" failed: the server's answer nes` +
            String.raw`ts deeper than 64 levels, the limit for tool output; it was refused`,
        ),
      );
      assert.ok((deep?.latencyMs ?? Infinity) < 5_000, `refused at once (${deep?.latencyMs} ms)`);

      const echo = results.get('echo');
      assert.equal(echo?.ok, true);
      assert.match(echo?.content[0]?.type === 'text' ? echo.content[0].text : '', /^echo: hi \(pid \d+\)$/);
    },
  );
});
