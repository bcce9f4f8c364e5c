// Helpers for gateway tests: a `toolgate gateway` process, MCP clients on the official SDK, and the runs API.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RunEvent } from '../../src/core/index.ts';
import { TOOLGATE_BIN, startProcess, type StartedProcess } from './processes.ts';

export interface RunningGateway extends StartedProcess {
  /** The server's base URL (runs API); MCP is at `${url}/mcp`. */
  url: string;
}

/** Starts `toolgate gateway` over HTTP on a free port and waits for its ready line. */
export async function startGateway(options: {
  config: string;
  store: string;
  cwd: string;
  extra?: string[];
}): Promise<RunningGateway> {
  const started = await startProcess({
    command: process.execPath,
    args: [
      TOOLGATE_BIN,
      'gateway',
      '--config',
      options.config,
      '--port',
      '0',
      '--store',
      options.store,
      ...(options.extra ?? []),
    ],
    cwd: options.cwd,
    env: { NO_COLOR: '1', TOOLGATE_LOG_LEVEL: 'warn' },
    ready: /MCP at (http:\/\/[^\s]+)\/mcp/,
    timeoutMs: 30_000,
  });
  return { ...started, url: started.match[1] ?? '' };
}

export type Elicit = (request: { message: string; requestedSchema: unknown }) => {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean>;
};

export interface ClientOptions {
  /** An API key (Authorization: Bearer). */
  key?: string;
  /** 'legacy': the 2025 initialize handshake (the SDK's default); 'auto': 2026-07-28 when the server offers it. */
  era?: 'legacy' | 'auto';
  /** Answers elicitations; absent: the client declares no elicitation support. */
  elicit?: Elicit;
  headers?: Record<string, string>;
  name?: string;
  /** The MCP path (default /mcp; a virtual server's, e.g. /mcp/trading). */
  path?: string;
}

function newClient(options: ClientOptions): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = new Client(
    { name: options.name ?? 'gateway-test', version: '1.0.0' },
    {
      capabilities: options.elicit === undefined ? {} : { elicitation: { form: {} } },
      versionNegotiation: { mode: options.era ?? 'legacy' },
    },
  );
  const elicit = options.elicit;
  if (elicit !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      asked.push(params.message);
      return elicit({ message: params.message, requestedSchema: params.requestedSchema });
    });
  }
  return { client, asked };
}

/** An MCP client (official SDK) connected to the gateway over Streamable HTTP. */
export async function connectHttp(
  gateway: RunningGateway,
  options: ClientOptions = {},
): Promise<{ client: Client; asked: string[]; transport: StreamableHTTPClientTransport }> {
  const { client, asked } = newClient(options);
  const headers = {
    ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
    ...options.headers,
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}${options.path ?? '/mcp'}`), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return { client, asked, transport };
}

/** An MCP client that spawns `toolgate gateway --stdio` as Claude Desktop or Cursor would. */
export async function connectStdio(
  args: string[],
  options: ClientOptions & { cwd: string },
): Promise<{ client: Client; asked: string[]; stderr: () => string }> {
  const { client, asked } = newClient(options);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TOOLGATE_BIN, 'gateway', '--stdio', ...args],
    cwd: options.cwd,
    stderr: 'pipe',
    env: { ...process.env, NO_COLOR: '1' } as Record<string, string>,
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  await client.connect(transport);
  return { client, asked, stderr: () => err };
}

export async function api<T = unknown>(
  gateway: RunningGateway,
  path: string,
  options: { key?: string; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (/metrics): the text.
  }
  return { status: response.status, body: body as T };
}

/** The events of a run, over the runs API. */
export async function runEvents(gateway: RunningGateway, runId: string, key?: string): Promise<RunEvent[]> {
  const { status, body } = await api<{ events: RunEvent[] }>(
    gateway,
    `/v1/runs/${runId}/events?format=json`,
    key === undefined ? {} : { key },
  );
  if (status !== 200) throw new Error(`GET events of ${runId}: ${status} ${JSON.stringify(body)}`);
  return body.events;
}

/** Polls until `check` returns a value (or throws after `timeoutMs`). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The text of an MCP tool result's content. */
export function textOf(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
  return content.map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n');
}

export function runIdOf(result: { _meta?: Record<string, unknown> | undefined }): string {
  const id = result._meta?.['toolgate/runId'];
  if (typeof id !== 'string') throw new Error(`the result names no run: ${JSON.stringify(result._meta)}`);
  return id;
}
