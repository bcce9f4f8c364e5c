import type { Client } from '@modelcontextprotocol/client';
import {
  TRUNCATED_META_KEY,
  ToolgateError,
  describeError,
  isJsonObject,
  type ErrorCode,
  type CompletionRequest,
  type JsonObject,
  type PassthroughRequestOptions,
  type PassthroughSource,
  type UpstreamNotification,
} from '../../core/index.ts';
import { errorField } from './error-fields.ts';
import type { McpSdk } from './mcp-sdk.ts';
import { refusedAnswerOf, type RefusedAnswer } from './refused-answer.ts';

/** What a passthrough request needs of a live connection. */
export interface PassthroughConnection {
  client: Client;
  sdk: McpSdk;
}

export interface McpPassthroughOptions<C extends PassthroughConnection> {
  /** The server's configured name, for messages. */
  server: string;
  /** The live connection, connecting (or reconnecting) when there is none. */
  connect: () => Promise<C>;
  /** Every request's timeout. */
  timeoutMs: number;
  /** The connection broke during a request: the next one reconnects. */
  onConnectionLost: (conn: C) => void;
  /** What the server showed of itself (a stderr line), for messages about a server that went away. */
  why: () => string;
  /** Whether the server declared resource subscriptions (its last connection). */
  offersSubscribe?: () => boolean;
  /** Adds a listener to the server's notifications; returns a stop. */
  onNotification?: (listener: (notification: UpstreamNotification) => void) => () => void;
}

type Capability = 'resources' | 'prompts' | 'completions';

/** What a server without completions answers (the spec's empty completion). */
const NO_COMPLETION: JsonObject = { completion: { values: [], hasMore: false } };

/**
 * One MCP server's resources and prompts, on the source's connection. The
 * SDK walks every page of a list itself when no cursor is given (capped by
 * its `listMaxPages`, which rejects rather than return a partial list).
 */
export class McpPassthrough<C extends PassthroughConnection> implements PassthroughSource {
  readonly #options: McpPassthroughOptions<C>;

  constructor(options: McpPassthroughOptions<C>) {
    this.#options = options;
  }

  listResources(options: { signal?: AbortSignal } = {}): Promise<JsonObject[]> {
    return this.#request(
      { what: 'list the resources of', capability: 'resources', signal: options.signal, absent: () => [] },
      async (client, request) => jsonList((await client.listResources(undefined, request)).resources),
    );
  }

  listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<JsonObject[]> {
    return this.#request(
      { what: 'list the resource templates of', capability: 'resources', signal: options.signal, absent: () => [] },
      async (client, request) => jsonList((await client.listResourceTemplates(undefined, request)).resourceTemplates),
    );
  }

  readResource(uri: string, options: PassthroughRequestOptions = {}): Promise<JsonObject> {
    // Asked on behalf of someone this server is closed to: as if it did not exist.
    if (options.servers !== undefined && !options.servers(this.#options.server)) {
      return Promise.reject(new ToolgateError('not_found', `no MCP server open to you has resource "${uri}"`));
    }
    return this.#request(
      { what: `read resource "${uri}" from`, capability: 'resources', signal: options.signal, absent: undefined },
      async (client, base) => {
        const request = withProgress(base, options.onProgress);
        try {
          return jsonResult(await client.readResource({ uri }, request));
        } catch (error) {
          // Too large to read whole: what was read, marked as cut (the gateway cuts it to its limit and says so).
          const refused = refusedAnswerOf(error);
          if (refused?.reason === 'too_large') return cutResource(refused);
          throw error;
        }
      },
    );
  }

  listPrompts(options: { signal?: AbortSignal } = {}): Promise<JsonObject[]> {
    return this.#request(
      { what: 'list the prompts of', capability: 'prompts', signal: options.signal, absent: () => [] },
      async (client, request) => jsonList((await client.listPrompts(undefined, request)).prompts),
    );
  }

  getPrompt(name: string, args?: Record<string, string>, options: PassthroughRequestOptions = {}): Promise<JsonObject> {
    return this.#request(
      { what: `get prompt "${name}" from`, capability: 'prompts', signal: options.signal, absent: undefined },
      async (client, request) =>
        jsonResult(
          await client.getPrompt(
            { name, ...(args === undefined ? {} : { arguments: args }) },
            withProgress(request, options.onProgress),
          ),
        ),
    );
  }

  complete(request: CompletionRequest, options: PassthroughRequestOptions = {}): Promise<JsonObject> {
    if (options.servers !== undefined && !options.servers(this.#options.server)) return Promise.resolve(NO_COMPLETION);
    return this.#request(
      {
        what: 'complete an argument with',
        capability: 'completions',
        signal: options.signal,
        absent: () => NO_COMPLETION,
      },
      async (client, base) => jsonResult(await client.complete(request, base)),
    );
  }

  async subscribeResource(uri: string, options: PassthroughRequestOptions = {}): Promise<{ server: string }> {
    const { server } = this.#options;
    if (options.servers !== undefined && !options.servers(server))
      throw new ToolgateError('not_found', `no MCP server open to you has resource "${uri}"`);
    if (this.#options.offersSubscribe?.() !== true)
      throw new ToolgateError('not_found', `MCP server "${server}" does not offer resource subscriptions`);
    await this.#request(
      { what: `subscribe to resource "${uri}" on`, capability: 'resources', signal: options.signal, absent: undefined },
      async (client, request) => client.subscribeResource({ uri }, request),
    );
    return { server };
  }

  async unsubscribeResource(uri: string): Promise<void> {
    await this.#request(
      { what: `unsubscribe from resource "${uri}" on`, capability: 'resources', signal: undefined, absent: () => ({}) },
      async (client, request) => client.unsubscribeResource({ uri }, request),
    );
  }

  offersSubscribe(): boolean {
    return this.#options.offersSubscribe?.() === true;
  }

  onNotification(listener: (notification: UpstreamNotification) => void): () => void {
    return this.#options.onNotification?.(listener) ?? (() => undefined);
  }

  async #request<T>(
    how: { what: string; capability: Capability; signal: AbortSignal | undefined; absent: (() => T) | undefined },
    send: (client: Client, request: { timeout: number; signal?: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const { server, timeoutMs } = this.#options;
    const where = `MCP server "${server}"`;
    if (isAborted(how.signal)) throw new ToolgateError('cancelled', `could not ${how.what} ${where}: cancelled`);
    let conn: C;
    try {
      conn = await this.#options.connect();
    } catch (error) {
      if (error instanceof ToolgateError) throw error;
      throw new ToolgateError('tool_unavailable', `could not ${how.what} ${where}: ${describeError(error)}`, {
        cause: error,
      });
    }
    // Checked here rather than left to the SDK, which answers an empty list with a console message.
    if (conn.client.getServerCapabilities()?.[how.capability] === undefined) {
      if (how.absent !== undefined) return how.absent();
      throw new ToolgateError('not_found', `could not ${how.what} ${where}: it does not offer ${how.capability}`, {
        details: { server },
      });
    }
    try {
      return await send(conn.client, {
        timeout: timeoutMs,
        ...(how.signal === undefined ? {} : { signal: how.signal }),
      });
    } catch (error) {
      if (isAborted(how.signal))
        throw new ToolgateError('cancelled', `could not ${how.what} ${where}: cancelled`, { cause: error });
      const { code, message, lost } = classify(error, conn.sdk, timeoutMs);
      if (lost) this.#options.onConnectionLost(conn);
      throw new ToolgateError(code, `could not ${how.what} ${where}: ${message}${lost ? this.#options.why() : ''}`, {
        cause: error,
        details: { server },
      });
    }
  }
}

/** What went wrong, as one of toolgate's codes, and whether the connection is gone. */
function classify(error: unknown, sdk: McpSdk, timeoutMs: number): { code: ErrorCode; message: string; lost: boolean } {
  const { SdkError, SdkErrorCode, ProtocolError, ProtocolErrorCode } = sdk.client;
  const message = describeError(error);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return { code: 'tool_timeout', message: `no answer within ${timeoutMs} ms`, lost: false };
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    ) {
      return {
        code: 'tool_unavailable',
        message: `the server connection was lost (${message}); it is restarted on the next request`,
        lost: true,
      };
    }
    return { code: 'tool_error', message, lost: false };
  }
  if (error instanceof ProtocolError) {
    // Servers on older SDKs answer an unknown URI or prompt with InvalidParams "… not found" rather than
    // ResourceNotFound.
    const notFound =
      error.code === ProtocolErrorCode.ResourceNotFound ||
      error.code === ProtocolErrorCode.MethodNotFound ||
      (error.code === ProtocolErrorCode.InvalidParams && /\bnot found\b/i.test(message));
    if (notFound) return { code: 'not_found', message, lost: false };
    if (error.code === ProtocolErrorCode.InvalidParams) return { code: 'invalid_arguments', message, lost: false };
    return { code: 'tool_error', message, lost: false };
  }
  if (isConnectionError(error))
    return { code: 'tool_unavailable', message: `the server is unreachable (${message})`, lost: true };
  return { code: 'tool_error', message, lost: false };
}

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = errorField(error, 'code') ?? errorField(error.cause, 'code');
  return (
    error instanceof TypeError ||
    (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOENT)$/.test(code)) ||
    /fetch failed|socket hang up/i.test(error.message)
  );
}

/**
 * What was read of a resource too large to read whole: the contents that were read (one cut at the end keeps its text
 * so far), marked as cut.
 */
function cutResource(refused: RefusedAnswer): JsonObject {
  const contents = refused.partial?.['contents'];
  const read = Array.isArray(contents)
    ? contents
        .filter(isJsonObject)
        .filter((c) => typeof c['uri'] === 'string' && (typeof c['text'] === 'string' || typeof c['blob'] === 'string'))
    : [];
  // The last one may be the one cut: half of a blob's base64 means nothing.
  if (typeof read.at(-1)?.['blob'] === 'string') read.pop();
  return { contents: read, _meta: { [TRUNCATED_META_KEY]: { bytes: refused.bytes, limit: refused.limit } } };
}

// MCP results are JSON objects as the server sent them (the SDK checked their shape); its types only describe the
// fields it knows.
function jsonList(items: readonly object[]): JsonObject[] {
  return items.filter(isJsonObject);
}

function jsonResult(value: object): JsonObject {
  if (!isJsonObject(value))
    throw new ToolgateError('tool_error', 'the server answered with something that is not a JSON object');
  return value;
}

function withProgress<R extends object>(
  request: R,
  onProgress: ((progress: JsonObject) => void) | undefined,
): R & { onprogress?: (progress: object) => void } {
  if (onProgress === undefined) return request;
  return {
    ...request,
    onprogress: (progress: object) => {
      if (isJsonObject(progress)) onProgress(progress);
    },
  };
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
