import type { Client, Transport } from '@modelcontextprotocol/client';
import {
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolgateError,
  describeError,
  isJsonObject,
  toolError,
  type JsonObject,
  type CallToolRequest,
  type PassthroughSource,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
  type UpstreamClientOptions,
  type UpstreamNotification,
} from '../../core/index.ts';
import { errorCodes } from './error-fields.ts';
import { fromMcpCallError, fromMcpResult, fromRefusedAnswer } from './mcp-result.ts';
import { refusedAnswerOf } from './refused-answer.ts';
import { meaningfulStderrLine } from './start-error.ts';
import { startFailure } from './start-failure.ts';
import { shownEndpoint, type McpServerConfig } from './mcp-server-config.ts';
import { loadMcpSdk, type McpSdk } from './mcp-sdk.ts';
import { McpPassthrough } from './mcp-passthrough.ts';
import { mcpToolSpec, taskSupportOf } from './mcp-tool-spec.ts';
import { callAsTask } from './task-call.ts';
import { createMcpTransport } from './mcp-transport.ts';
import { deliverResponsesAfterNotifications } from './responses-after-notifications.ts';
import { declaredCapabilities, installUpstreamClientHandlers } from './upstream-client-handlers.ts';
import type { StdioWatch } from './stdio-watch.ts';
import { watchUpstreamNotifications } from './upstream-notifications.ts';

export type { McpServerConfig } from './mcp-server-config.ts';

export const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;
/** How long a failed start waits for the rest of a dying server's stderr. */
const STDERR_GRACE_MS = 500;
const CLIENT_INFO = { name: 'toolgate', version: '0.1.0' };

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
  /**
   * Client capabilities to declare to the server and how to answer its requests (a gateway session's own
   * connection: docs/gateway.md); absent, the connection declares none.
   */
  client?: UpstreamClientOptions;
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
  /**
   * The server's resources and prompts, on the same connection as its tools (same connect timeout as listTools for
   * every request).
   */
  readonly passthrough: PassthroughSource;
  readonly #options: McpToolSourceOptions;
  #connecting: Promise<Connection> | undefined;
  /** What the current (or last) stdio server process showed of itself. */
  #watch: StdioWatch | undefined;
  #exitInfo: string | undefined;
  #closed = false;
  /** Told of the server's notifications (list changes, resource updates, logs): the gateway forwards them. */
  readonly #listeners = new Set<(notification: UpstreamNotification) => void>();
  /** Whether the last connection's server declared resource subscriptions. */
  #subscribe = false;
  /** Connections opened so far: from the second on, listeners are told (`reconnected`). */
  #opened = 0;
  /** The tools the server last listed as needing a task (`execution.taskSupport: required`): called as tasks. */
  #taskTools = new Set<string>();

  constructor(options: McpToolSourceOptions) {
    this.name = options.name;
    this.#options = options;
    const { onLog, onNotification } = options.client ?? {};
    // A session's own connection: its server's notifications belong to that session.
    if (onLog !== undefined || onNotification !== undefined)
      this.#listeners.add((notification) => {
        if (notification.kind === 'log') onLog?.(notification.server, notification.params);
        else onNotification?.(notification);
      });
    this.passthrough = new McpPassthrough<Connection>({
      server: options.name,
      connect: () => this.#connect(),
      timeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      onConnectionLost: (conn) => this.#drop(conn),
      why: () => this.#why(),
      offersSubscribe: () => this.#subscribe,
      onNotification: (listener) => {
        this.#listeners.add(listener);
        return () => this.#listeners.delete(listener);
      },
    });
  }

  /** Human description of the endpoint, for messages and `toolgate tools`. */
  get endpoint(): string {
    const s = this.#options.server;
    return 'url' in s ? s.url : shownEndpoint(s);
  }

  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolSpec[]> {
    const conn = await this.#connect();
    // A server with only resources or prompts (gateway mode passes those through); the SDK would answer the same, with
    // a console message.
    if (conn.client.getServerCapabilities()?.tools === undefined) return [];
    try {
      // Without a cursor the SDK walks every page and returns them all.
      const { tools } = await conn.client.listTools(undefined, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        timeout: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
      this.#taskTools = new Set(tools.filter((tool) => taskSupportOf(tool) === 'required').map((tool) => tool.name));
      return tools.map((tool) => mcpToolSpec(tool, { server: this.name, timeoutMs: this.#options.defaultTimeoutMs }));
    } catch (error) {
      throw new ToolgateError(
        'tool_unavailable',
        `could not list the tools of MCP server "${this.name}" ` +
          `(${shownEndpoint(this.#options.server)}): ${describeError(error)}${this.#why()}`,
        {
          cause: error,
        },
      );
    }
  }

  async callTool(request: CallToolRequest): Promise<ToolResult> {
    if (this.#closed) return notSent(toolError('tool_unavailable', `MCP server "${this.name}" is closed`));
    if (request.signal?.aborted === true)
      return notSent(toolError('cancelled', `call to "${request.name}" was cancelled before it started`));
    let conn: Connection;
    try {
      conn = await this.#connect();
    } catch (error) {
      return notSent(toolError('tool_unavailable', describeError(error)));
    }
    const timeoutMs = request.timeoutMs ?? this.#options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    try {
      if (this.#taskTools.has(request.name) && conn.client.getServerCapabilities()?.tasks !== undefined)
        return fromMcpResult(
          await callAsTask(conn.client, {
            sdk: conn.sdk.client,
            name: request.name,
            arguments: request.arguments,
            meta: request.meta,
            timeoutMs,
            signal: request.signal,
            onProgress: request.onProgress,
          }),
        );
      const result = await conn.client.callTool(
        {
          name: request.name,
          arguments: request.arguments,
          ...(request.meta === undefined ? {} : { _meta: request.meta }),
        },
        {
          timeout: timeoutMs,
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(request.onProgress === undefined ? {} : { onprogress: progressTo(request.onProgress) }),
        },
      );
      return fromMcpResult(result);
    } catch (error) {
      if (isAborted(request.signal)) return toolError('cancelled', `call to "${request.name}" was cancelled`);
      // An answer too large to read whole: the result is what was read of it, marked as cut.
      const refused = refusedAnswerOf(error);
      if (refused?.reason === 'too_large') return fromRefusedAnswer(refused, { server: this.name, tool: request.name });
      // Give the transport a moment to report the process exit, so the message says why.
      if (isDropped(conn) || isClosedError(error)) await new Promise((r) => setTimeout(r, 50));
      const ctx = {
        server: this.name,
        tool: request.name,
        timeoutMs,
        ...(this.#exitInfo === undefined ? {} : { exitInfo: this.#exitInfo }),
      };
      const { result, connectionLost } = fromMcpCallError(error, ctx, conn.sdk.client);
      if (connectionLost) this.#drop(conn);
      // A refused connection never carried the request; any other failure may have come after the server got it.
      return isRefused(error) ? notSent(result) : result;
    }
  }

  /** Tells the server its client's roots changed (when connected and the connection declares roots). */
  rootsChanged(): void {
    if (this.#options.client?.capabilities.roots === undefined) return;
    void this.#connecting
      ?.then((conn) => (conn.closed ? undefined : conn.client.sendRootsListChanged()))
      .catch(() => undefined);
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
    if (this.#closed)
      return Promise.reject(new ToolgateError('tool_unavailable', `MCP server "${this.name}" is closed`));
    this.#connecting ??= this.#open().catch((error: unknown) => {
      this.#connecting = undefined;
      throw error;
    });
    return this.#connecting;
  }

  async #open(): Promise<Connection> {
    this.#exitInfo = undefined;
    const sdk = await loadMcpSdk();
    const { transport, watch } = createMcpTransport(sdk, {
      server: this.#options.server,
      maxResultBytes: this.#options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
      onStderr: this.#options.onStderr,
    });
    this.#watch = watch;
    const offered = this.#options.client;
    const client =
      offered === undefined
        ? new sdk.client.Client(CLIENT_INFO)
        : new sdk.client.Client(CLIENT_INFO, { capabilities: declaredCapabilities(offered) });
    if (offered !== undefined) installUpstreamClientHandlers(client, sdk, { server: this.name, client: offered });
    const conn: Connection = { client, transport, sdk, closed: false };
    watchUpstreamNotifications(client, this.name, (notification) => this.#emit(notification));
    const timeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    // What the transport saw go wrong (a stdout message that is not JSON-RPC) explains a handshake that never
    // completes.
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
    deliverResponsesAfterNotifications(transport);
    this.#subscribe = client.getServerCapabilities()?.resources?.subscribe === true;
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      this.#drop(conn);
    };
    this.#opened += 1;
    // Told once this connection is the current one, so that what a listener asks of the server goes on it.
    if (this.#opened > 1) queueMicrotask(() => this.#emit({ kind: 'reconnected', server: this.name }));
    return conn;
  }

  #drop(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    const line = meaningfulStderrLine(this.#watch?.stderr ?? []);
    const exit = this.#watch?.exit;
    const how =
      exit === undefined ? '' : exit.signal === null ? ` (exit code ${exit.code})` : ` (killed by ${exit.signal})`;
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

  #emit(notification: UpstreamNotification): void {
    for (const listener of this.#listeners) listener(notification);
  }

  #why(): string {
    const line = meaningfulStderrLine(this.#watch?.stderr ?? []);
    return line === undefined ? '' : ` (server stderr: ${line})`;
  }
}

/** The SDK's progress callback, handing on the progress as plain JSON. */
export function progressTo(onProgress: (progress: JsonObject) => void): (progress: object) => void {
  return (progress) => {
    if (isJsonObject(progress)) onProgress(progress);
  };
}

/** The request certainly did not reach the server: a failed write is then not an unknown outcome. */
function notSent(result: ToolResult): ToolResult {
  return { ...result, notSent: true };
}

function isRefused(error: unknown): boolean {
  return errorCodes(error, 5).has('ECONNREFUSED');
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
