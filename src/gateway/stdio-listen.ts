import {
  SUBSCRIPTION_ID_META_KEY,
  type JSONRPCMessage,
  type ServerEvent,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { ToolgateError, describeError, isJsonObject, type PassthroughSource } from '../core/index.ts';
import type { Gateway } from './gateway.ts';
import type { GatewayEndpoint } from './endpoints.ts';
import type { GatewayIdentity } from './gateway-session.ts';
import type { ListenStream } from './listen-stream.ts';
import { ListenStreams, listenErrorCode } from './listen-streams.ts';
import { UpstreamHub } from './upstream-hub.ts';

type Id = string | number;

const CHANGES = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

const METHODS: Record<ServerEvent['kind'], string> = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
  resource_updated: 'notifications/resources/updated',
};

/**
 * `subscriptions/listen` of a 2026-07-28 client over stdio, as the HTTP face serves it (listen-streams.ts): the
 * SDK's stdio entry takes no event bus, it acknowledges a listen itself and copies every change notification of
 * the session's server onto every stream that asked for that kind. So the gateway stands between the entry and the
 * connection (serveStdio's `transport` option): a listen is checked and prepared before the entry sees it (refused
 * in-band, never acknowledged, when it cannot be served), its stream is told its own events once the entry's
 * acknowledgement went out, stamped with its subscription id, and the entry's copies are dropped.
 */
export class StdioListen implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  readonly #inner: Transport;
  readonly #streams: ListenStreams;
  readonly #hub: UpstreamHub;
  readonly #call: { identity: GatewayIdentity; endpoint: GatewayEndpoint | undefined; sessionKey: () => string };
  /** Streams by listen request id: prepared (waiting for the entry's acknowledgement) or served. */
  readonly #byId = new Map<Id, { stream: ListenStream; acknowledged: boolean }>();
  /** Listens being prepared, and those of them the client cancelled meanwhile. */
  readonly #preparing = new Set<Id>();
  readonly #cancelled = new Set<Id>();
  #closed = false;

  constructor(options: {
    inner: Transport;
    gateway: Gateway;
    passthrough: PassthroughSource | undefined;
    call: { identity: GatewayIdentity; endpoint: GatewayEndpoint | undefined; sessionKey: () => string };
  }) {
    this.#inner = options.inner;
    this.#streams = new ListenStreams(options.gateway, options.passthrough);
    this.#hub = UpstreamHub.of(options.gateway, options.passthrough);
    this.#call = options.call;
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      // Only a listen waits (for its preparation); every other message reaches the entry at once, in order.
      if (!this.#inspect(message)) this.onmessage?.(message, extra);
      else
        void this.#listen(message).then((pass) => {
          if (pass) this.onmessage?.(message, extra);
        });
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#closed = true;
      for (const { stream } of this.#byId.values()) this.#streams.release(stream);
      this.#byId.clear();
      this.onclose?.();
    };
    await this.#inner.start();
  }

  /** What the SDK's entry writes: its acknowledgement activates a stream; its copies of changes are not sent. */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const subscription = subscriptionOf(message);
    if (subscription !== undefined && CHANGES.has(subscription.method)) return;
    if (subscription?.method === 'notifications/subscriptions/acknowledged') {
      await this.#inner.send(message, options);
      this.#acknowledged(subscription.id, message);
      return;
    }
    await this.#inner.send(message, options);
    // The entry refused a listen (its own bounds, the envelope): nothing of it is kept.
    const id = 'id' in message && 'error' in message ? message.id : undefined;
    const open = id === undefined || id === null ? undefined : this.#byId.get(id);
    if (id !== undefined && id !== null && open !== undefined && !open.acknowledged) this.#end(id);
  }

  async close(): Promise<void> {
    await this.#inner.close();
  }

  /** Whether `message` is a listen (to be prepared first); a cancel of a stream ends it here too. */
  #inspect(message: JSONRPCMessage): boolean {
    const body: unknown = message;
    if (!isJsonObject(body)) return false;
    if (body['method'] === 'notifications/cancelled') {
      const params = body['params'];
      const id = isJsonObject(params) ? params['requestId'] : undefined;
      if (typeof id === 'string' || typeof id === 'number') {
        if (this.#byId.has(id)) this.#end(id);
        else if (this.#preparing.has(id)) this.#cancelled.add(id);
      }
      return false;
    }
    const id = body['id'];
    return ListenStreams.isListen(body) && (typeof id === 'string' || typeof id === 'number');
  }

  /** Whether the entry is to see the listen: only once prepared (else refused here). */
  async #listen(message: JSONRPCMessage): Promise<boolean> {
    const body: unknown = message;
    const id = isJsonObject(body) ? body['id'] : undefined;
    if (!isJsonObject(body) || !(typeof id === 'string' || typeof id === 'number')) return true;
    this.#preparing.add(id);
    try {
      return await this.#prepare(id, body);
    } finally {
      this.#preparing.delete(id);
      this.#cancelled.delete(id);
    }
  }

  async #prepare(id: Id, body: Record<string, unknown>): Promise<boolean> {
    if (this.#byId.has(id)) {
      await this.#refuse(id, -32600, `a subscriptions/listen with id ${JSON.stringify(id)} is open already`);
      return false;
    }
    let stream: ListenStream;
    try {
      stream = await this.#streams.open({ body, transport: 'stdio', ...this.#call });
    } catch (error) {
      const refused = error instanceof ToolgateError ? error : undefined;
      await this.#refuse(id, refused === undefined ? -32603 : listenErrorCode(refused), describeError(error));
      return false;
    }
    if (this.#cancelled.has(id) || this.#closed) {
      this.#streams.release(stream);
      return false;
    }
    this.#byId.set(id, { stream, acknowledged: false });
    return true;
  }

  /** The entry acknowledged the listen: from now on its stream is told its events, as far as the entry honoured. */
  #acknowledged(id: Id, message: JSONRPCMessage): void {
    const open = this.#byId.get(id);
    if (open === undefined || open.acknowledged) return;
    open.acknowledged = true;
    const { stream } = open;
    // The entry honours resourceSubscriptions only when the server declared `resources.subscribe`: none is kept else.
    if (!honoursResources(message)) this.#hub.subscriptions?.end(stream);
    stream.listener = (event) => {
      const params = event.kind === 'resource_updated' ? { uri: event.uri } : {};
      const notification = {
        jsonrpc: '2.0' as const,
        method: METHODS[event.kind],
        params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
      };
      void this.#inner.send(notification).catch((error: unknown) => this.onerror?.(asError(error)));
    };
  }

  #end(id: Id): void {
    const open = this.#byId.get(id);
    this.#byId.delete(id);
    if (open !== undefined) this.#streams.release(open.stream);
  }

  async #refuse(id: Id, code: number, message: string): Promise<void> {
    await this.#inner
      .send({ jsonrpc: '2.0', id, error: { code, message } })
      .catch((error: unknown) => this.onerror?.(asError(error)));
  }
}

/** The subscription id an outbound notification is stamped with, and its method. */
function subscriptionOf(message: JSONRPCMessage): { id: Id; method: string } | undefined {
  if (!('method' in message) || 'id' in message) return undefined;
  const params: unknown = message.params;
  const meta = isJsonObject(params) ? params['_meta'] : undefined;
  const id = isJsonObject(meta) ? meta[SUBSCRIPTION_ID_META_KEY] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? { id, method: message.method } : undefined;
}

function honoursResources(message: JSONRPCMessage): boolean {
  const params: unknown = 'params' in message ? message.params : undefined;
  const filter = isJsonObject(params) ? params['notifications'] : undefined;
  return isJsonObject(filter) && Array.isArray(filter['resourceSubscriptions']);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
