import type { Client, Transport } from '@modelcontextprotocol/client';
import {
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolgateError,
  isJsonObject,
  toolError,
  type CallToolRequest,
  type JsonSchema,
  type PassthroughSource,
  type ToolAnnotations,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
} from '../../core/index.ts';
import { BoundedReadBuffer } from './bounded-read-buffer.ts';
import { boundedFetch } from './bounded-fetch.ts';
import { fromMcpCallError, fromMcpResult, fromRefusedAnswer } from './mcp-result.ts';
import { readLimits } from './read-limits.ts';
import { refusedAnswerOf } from './refused-answer.ts';
import { meaningfulStderrLine } from './start-error.ts';
import { shownEndpoint, startFailure } from './start-failure.ts';
import { loadMcpSdk, type McpSdk } from './mcp-sdk.ts';
import { McpPassthrough } from './mcp-passthrough.ts';
import { StdioWatch } from './stdio-watch.ts';
import { serverEnvironment } from './server-environment.ts';

export const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;
/** How long a failed start waits for the rest of a dying server's stderr. */
const STDERR_GRACE_MS = 500;
const CLIENT_INFO = { name: 'toolgate', version: '0.1.0' };

/** How to reach one MCP server: a command to spawn (stdio) or a Streamable HTTP URL. */
export type McpServerConfig =
  | {
      command: string;
      args?: string[] | undefined;
      /** Set for the server, over what it receives anyway (see serverEnvironment). */
      env?: Record<string, string> | undefined;
      /** Pass toolgate's whole environment, not only the SDK's defaults and the network variables. */
      inheritEnv?: boolean | undefined;
      cwd?: string | undefined;
    }
  | { url: string; headers?: Record<string, string> | undefined };

export interface McpToolSourceOptions {
  /** The server's configured name: the `server` part of tool origins and policy patterns. */
  name: string;
  server: McpServerConfig;
  connectTimeoutMs?: number;
  /** Timeout for calls that do not set their own. */
  defaultTimeoutMs?: number;
  /** Receives the server's stderr, line by line (stdio only). */
  onStderr?: (line: string) => void;
  /**
   * The largest result any caller keeps (default DEFAULT_MAX_RESULT_BYTES):
   * a message from the server larger than that (with room for its envelope,
   * and at least 4 MiB) is not held whole but read on and cut.
   */
  maxResultBytes?: number;
}

interface Connection {
  client: Client;
  transport: Transport;
  sdk: McpSdk;
  closed: boolean;
}

/**
 * One MCP server as a ToolSource, on the official SDK. Connects lazily; when
 * the connection drops (a stdio server crashed, an HTTP server went away) the
 * call in flight becomes a `tool_unavailable` result and the next call
 * reconnects, which restarts a stdio server.
 */
export class McpToolSource implements ToolSource {
  readonly name: string;
  /** The server's resources and prompts, on the same connection as its tools (same connect timeout as listTools for every request). */
  readonly passthrough: PassthroughSource;
  readonly #options: McpToolSourceOptions;
  #connecting: Promise<Connection> | undefined;
  /** What the current (or last) stdio server process showed of itself. */
  #watch: StdioWatch | undefined;
  #exitInfo: string | undefined;
  #closed = false;

  constructor(options: McpToolSourceOptions) {
    this.name = options.name;
    this.#options = options;
    this.passthrough = new McpPassthrough<Connection>({
      server: options.name,
      connect: () => this.#connect(),
      timeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      onConnectionLost: (conn) => this.#drop(conn),
      why: () => this.#why(),
    });
  }

  /** Human description of the endpoint, for messages and `toolgate tools`. */
  get endpoint(): string {
    const s = this.#options.server;
    return 'url' in s ? s.url : [s.command, ...(s.args ?? [])].join(' ');
  }

  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolSpec[]> {
    const conn = await this.#connect();
    // A server with only resources or prompts (gateway mode passes those through); the SDK would answer the same, with a console message.
    if (conn.client.getServerCapabilities()?.tools === undefined) return [];
    try {
      // Without a cursor the SDK walks every page and returns them all.
      const { tools } = await conn.client.listTools(undefined, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        timeout: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
      return tools.map((tool) => this.#toSpec(tool));
    } catch (error) {
      throw new ToolgateError('tool_unavailable', `could not list the tools of MCP server "${this.name}" (${shownEndpoint(this.#options.server)}): ${describe(error)}${this.#why()}`, {
        cause: error,
      });
    }
  }

  async callTool(request: CallToolRequest): Promise<ToolResult> {
    if (this.#closed) return notSent(toolError('tool_unavailable', `MCP server "${this.name}" is closed`));
    if (request.signal?.aborted === true) return notSent(toolError('cancelled', `call to "${request.name}" was cancelled before it started`));
    let conn: Connection;
    try {
      conn = await this.#connect();
    } catch (error) {
      return notSent(toolError('tool_unavailable', error instanceof Error ? error.message : String(error)));
    }
    const timeoutMs = request.timeoutMs ?? this.#options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    try {
      const result = await conn.client.callTool(
        { name: request.name, arguments: request.arguments, ...(request.meta === undefined ? {} : { _meta: request.meta }) },
        { timeout: timeoutMs, ...(request.signal === undefined ? {} : { signal: request.signal }) },
      );
      return fromMcpResult(result);
    } catch (error) {
      if (isAborted(request.signal)) return toolError('cancelled', `call to "${request.name}" was cancelled`);
      // An answer too large to read whole: the result is what was read of it, marked as cut.
      const refused = refusedAnswerOf(error);
      if (refused?.reason === 'too_large') return fromRefusedAnswer(refused, { server: this.name, tool: request.name });
      // Give the transport a moment to report the process exit, so the message says why.
      if (isDropped(conn) || isClosedError(error)) await new Promise((r) => setTimeout(r, 50));
      const ctx = { server: this.name, tool: request.name, timeoutMs, ...(this.#exitInfo === undefined ? {} : { exitInfo: this.#exitInfo }) };
      const { result, connectionLost } = fromMcpCallError(error, ctx, conn.sdk.client);
      if (connectionLost) this.#drop(conn);
      // A refused connection never carried the request; any other failure may have come after the server got it.
      return isRefused(error) ? notSent(result) : result;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#connecting;
    this.#connecting = undefined;
    if (pending === undefined) return;
    try {
      const conn = await pending;
      conn.closed = true;
      await conn.client.close();
    } catch {
      // A server that failed to start has nothing to close.
    }
  }

  #connect(): Promise<Connection> {
    if (this.#closed) return Promise.reject(new ToolgateError('tool_unavailable', `MCP server "${this.name}" is closed`));
    this.#connecting ??= this.#open().catch((error: unknown) => {
      this.#connecting = undefined;
      throw error;
    });
    return this.#connecting;
  }

  async #open(): Promise<Connection> {
    this.#exitInfo = undefined;
    const sdk = await loadMcpSdk();
    const { transport, watch } = this.#createTransport(sdk);
    this.#watch = watch;
    const client = new sdk.client.Client(CLIENT_INFO);
    const conn: Connection = { client, transport, sdk, closed: false };
    const timeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    // What the transport saw go wrong (a stdout message that is not JSON-RPC) explains a handshake that never completes.
    const transportErrors: unknown[] = [];
    transport.onerror = (error) => {
      if (transportErrors.length < 5) transportErrors.push(error);
    };
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      // A server that died prints why on stderr, which may still be on its way: wait for it (briefly).
      await watch?.settle(STDERR_GRACE_MS);
      await client.close().catch(() => undefined);
      throw startFailure({ name: this.name, server: this.#options.server, error, timeoutMs, watch, transportErrors });
    }
    watch?.connected();
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      this.#drop(conn);
    };
    return conn;
  }

  #createTransport(sdk: McpSdk): { transport: Transport; watch?: StdioWatch } {
    const server = this.#options.server;
    const limits = readLimits(this.#options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
    let transport: Transport | undefined;
    // What was dropped (a message of the server that answers nothing and is too large) goes where transport errors go.
    const onError = (error: Error): void => transport?.onerror?.(error);
    if ('url' in server) {
      transport = new sdk.client.StreamableHTTPClientTransport(new URL(server.url), {
        fetch: boundedFetch({ limits, onError }),
        ...(server.headers === undefined ? {} : { requestInit: { headers: server.headers } }),
      });
      return { transport };
    }
    const stdio = new sdk.stdio.StdioClientTransport({
      command: server.command,
      args: server.args ?? [],
      env: serverEnvironment({ parent: process.env, sdkDefaults: sdk.stdio.getDefaultEnvironment(), inheritEnv: server.inheritEnv, env: server.env }),
      stderr: 'pipe',
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    });
    transport = stdio;
    useReadBuffer(stdio, new BoundedReadBuffer({ limits, deserialize: sdk.client.deserializeMessage, onError }));
    return { transport: stdio, watch: new StdioWatch(stdio, this.#options.onStderr) };
  }

  #drop(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    const line = meaningfulStderrLine(this.#watch?.stderr ?? []);
    const exit = this.#watch?.exit;
    const how = exit === undefined ? '' : exit.signal === null ? ` (exit code ${exit.code})` : ` (killed by ${exit.signal})`;
    this.#exitInfo = `the server closed the connection${how}${line === undefined ? '' : `; stderr: ${line}`}`;
    void conn.client.close().catch(() => undefined);
    // Only forget the connection if it is still the current one (a newer one may exist).
    const current = this.#connecting;
    if (current !== undefined) {
      void current.then(
        (c) => {
          if (c === conn && this.#connecting === current) this.#connecting = undefined;
        },
        () => undefined,
      );
    }
  }

  #why(): string {
    const line = meaningfulStderrLine(this.#watch?.stderr ?? []);
    return line === undefined ? '' : ` (server stderr: ${line})`;
  }

  #toSpec(tool: { name: string; title?: string | undefined; description?: string | undefined; inputSchema: unknown; outputSchema?: unknown; annotations?: unknown }): ToolSpec {
    const spec: ToolSpec = {
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: (isJsonObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' }) as JsonSchema,
      origin: { kind: 'mcp', server: this.name, tool: tool.name },
    };
    if (tool.title !== undefined) spec.title = tool.title;
    if (this.#options.defaultTimeoutMs !== undefined) spec.timeoutMs = this.#options.defaultTimeoutMs;
    if (isJsonObject(tool.outputSchema)) spec.outputSchema = tool.outputSchema as JsonSchema;
    if (isJsonObject(tool.annotations)) spec.annotations = pickAnnotations(tool.annotations);
    return spec;
  }
}

/**
 * The SDK's stdio transport reads through its private `_readBuffer`
 * (append, readMessage, clear); the bounded one takes its place. Should a
 * later SDK read otherwise, its own buffer stays (whole messages up to 10 MB,
 * then it drops the connection), and the tests of the bounded reads fail.
 */
function useReadBuffer(transport: object, buffer: BoundedReadBuffer): void {
  const current: unknown = Reflect.get(transport, '_readBuffer');
  const fits = typeof current === 'object' && current !== null && ['append', 'readMessage', 'clear'].every((method) => typeof Reflect.get(current, method) === 'function');
  if (fits) Reflect.set(transport, '_readBuffer', buffer);
}

function pickAnnotations(raw: Record<string, unknown>): ToolAnnotations {
  const out: ToolAnnotations = {};
  if (typeof raw['title'] === 'string') out.title = raw['title'];
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    const value = raw[key];
    if (typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/** The request certainly did not reach the server: a failed write is then not an unknown outcome. */
function notSent(result: ToolResult): ToolResult {
  return { ...result, notSent: true };
}

function isRefused(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function isDropped(conn: Connection): boolean {
  return conn.closed;
}

function isClosedError(error: unknown): boolean {
  return error instanceof Error && /closed|not connected/i.test(error.message);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
