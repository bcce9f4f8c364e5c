import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ServerEvent,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { ToolgateError, isJsonObject, type PassthroughSource } from '../core/index.ts';
import type { Gateway } from './gateway.ts';
import type { GatewayIdentity } from './gateway-session.ts';
import type { GatewayEndpoint } from './endpoints.ts';
import type { ListWatcher } from './list-changed.ts';
import { ListenStream, MAX_LISTEN_URIS, type ListenFilter } from './listen-stream.ts';
import { UpstreamHub } from './upstream-hub.ts';

/** `subscriptions/listen` streams one caller (tenant, user, API key) may hold open at once. */
export const MAX_LISTEN_STREAMS_PER_CALLER = 10;
/** Streams open at once in one gateway process (the SDK's `maxSubscriptions`). */
export const MAX_LISTEN_STREAMS = 1000;

/** One `subscriptions/listen` request, with who sent it. */
export interface ListenCall {
  /** The JSON-RPC request as parsed. */
  body: Record<string, unknown>;
  identity: GatewayIdentity;
  endpoint: GatewayEndpoint | undefined;
  /** The key of the caller's session (as its other requests make it), from the client's name. */
  sessionKey: (client: { name: string; version?: string } | undefined) => string;
  /** How the caller is connected (default: http). */
  transport?: 'stdio' | 'http';
}

/**
 * `subscriptions/listen` for 2026-07-28 clients, as the SDK's event bus.
 * The SDK's bus is handler-wide: what is published reaches every stream. The
 * gateway never publishes to all: each stream is prepared before the SDK
 * serves it (its caller's session, the views it watches, its resource
 * subscriptions checked and made), handed to the SDK inside an async context
 * that `subscribe` reads to learn which stream the SDK's listener belongs to,
 * and then told only its own events: list changes where its caller's view
 * changed (ListChanged), updates of the URIs it subscribed to
 * (ResourceSubscriptions).
 */
export class ListenStreams implements ServerEventBus {
  readonly #gateway: Gateway;
  readonly #passthrough: PassthroughSource | undefined;
  readonly #hub: UpstreamHub;
  readonly #opening = new AsyncLocalStorage<ListenStream>();
  readonly #open = new Set<ListenStream>();
  readonly #perCaller = new Map<string, number>();

  constructor(gateway: Gateway, passthrough: PassthroughSource | undefined) {
    this.#gateway = gateway;
    this.#passthrough = passthrough;
    this.#hub = UpstreamHub.of(gateway, passthrough);
    this.#hub.lists.watch(() => this.#watchers());
    // A session that ends takes its streams with it (they would otherwise reopen its run).
    gateway.onSessionEnd((key) => {
      for (const stream of [...this.#open])
        if (stream.session?.key === key) {
          stream.close();
          this.release(stream);
        }
    });
  }

  /** Whether `body` is a `subscriptions/listen` request. */
  static isListen(body: unknown): body is Record<string, unknown> {
    return isJsonObject(body) && body['method'] === 'subscriptions/listen';
  }

  /** Nothing is broadcast: an event without its caller could reach a tenant that may not see it. */
  publish(_event: ServerEvent): void {}

  /** The SDK's listener of the stream being opened (read from the async context `serve` runs it in). */
  subscribe(listener: (event: ServerEvent) => void): () => void {
    const stream = this.#opening.getStore();
    // Not opened through `serve`: told nothing.
    if (stream === undefined || stream.listener !== undefined) return () => undefined;
    stream.listener = listener;
    return () => this.release(stream);
  }

  /** Prepares the stream, then lets the SDK (`handle`) acknowledge and serve it. */
  async serve(call: ListenCall, handle: () => Promise<Response>): Promise<Response> {
    const id = call.body['id'];
    const requestId = typeof id === 'string' || typeof id === 'number' ? id : null;
    let stream: ListenStream;
    try {
      stream = await this.open(call);
    } catch (error) {
      if (!(error instanceof ToolgateError)) throw error;
      return inBandError(requestId, listenErrorCode(error), error.message);
    }
    const response = await this.#opening.run(stream, handle).catch((error: unknown) => {
      this.release(stream);
      throw error;
    });
    // The SDK refused it, or acknowledged nothing and ended it at once: nothing of it is kept.
    if (stream.listener === undefined) {
      this.release(stream);
      return response;
    }
    if (stream.released) {
      void response.body?.cancel().catch(() => undefined);
      return inBandError(requestId, -32000, 'the session ended while the stream was opened: listen again');
    }
    return stream.serve(response, this.#gateway.options.sessionIdleMs);
  }

  /**
   * A stream checked, counted and prepared (its session, the views it watches, its resource subscriptions made), told
   * nothing until it has a listener. Rejects with a ToolgateError saying what the client must change
   * (`listenErrorCode` gives its JSON-RPC code). `serve` uses it; the stdio face calls it itself, its stream being
   * acknowledged by the SDK on the connection.
   */
  async open(call: ListenCall): Promise<ListenStream> {
    const id = call.body['id'];
    const filter = filterOf(call.body);
    if (typeof filter === 'string') throw new ToolgateError('invalid_arguments', filter);
    const caller = callerKey(call.identity);
    const held = this.#perCaller.get(caller) ?? 0;
    if (held >= MAX_LISTEN_STREAMS_PER_CALLER)
      throw new ToolgateError(
        'rate_limited',
        `you have ${held} subscriptions/listen streams open, the most one caller may: close one first`,
      );
    this.#perCaller.set(caller, held + 1);
    const requestId = typeof id === 'string' || typeof id === 'number' ? id : '';
    const stream = new ListenStream({ id: requestId, caller, endpoint: call.endpoint });
    try {
      await this.#prepare(stream, call, filter);
    } catch (error) {
      this.release(stream);
      throw error;
    }
    this.#open.add(stream);
    return stream;
  }

  async #prepare(stream: ListenStream, call: ListenCall, filter: ListenFilter): Promise<void> {
    const meta = isJsonObject(call.body['params']) ? call.body['params']['_meta'] : undefined;
    const client = clientOf(isJsonObject(meta) ? meta[CLIENT_INFO_META_KEY] : undefined);
    const version = isJsonObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
    const session = await this.#gateway.session(call.sessionKey(client), call.identity, {
      transport: call.transport ?? 'http',
      ...(client === undefined ? {} : { client }),
      ...(typeof version === 'string' ? { protocolVersion: version.slice(0, 40) } : {}),
      ...(call.endpoint === undefined ? {} : { endpoint: call.endpoint.path }),
    });
    stream.hold(session);
    const { catalog } = await this.#gateway.catalog(session);
    const uris = filter.resourceSubscriptions ?? [];
    const subscriptions = this.#hub.subscriptions;
    const subscribable = subscriptions !== undefined && this.#passthrough?.offersSubscribe?.() === true;
    await stream.watch({ gateway: this.#gateway, passthrough: this.#passthrough, catalog, filter });
    if (!subscribable || uris.length === 0) return;
    const access = stream.access(this.#gateway, catalog);
    const listed = (await this.#passthrough?.listResources()) ?? [];
    for (const uri of uris) {
      const known = listed.find((r) => r['uri'] === uri);
      if (known !== undefined && !access.item(known))
        throw new ToolgateError('not_found', `resource ${uri} is not available to you`);
      await subscriptions.subscribe(stream, uri, access.server);
    }
  }

  #watchers(): ListWatcher[] {
    const watchers: ListWatcher[] = [];
    for (const stream of this.#open) {
      const watcher = stream.watcher();
      if (watcher !== undefined) watchers.push(watcher);
    }
    return watchers;
  }

  /** The stream is gone (the client left, the SDK closed it, or it was never opened): what it held is given back. */
  release(stream: ListenStream): void {
    if (stream.released) return;
    this.#open.delete(stream);
    this.#hub.subscriptions?.end(stream);
    const held = (this.#perCaller.get(stream.caller) ?? 1) - 1;
    if (held <= 0) this.#perCaller.delete(stream.caller);
    else this.#perCaller.set(stream.caller, held);
    const session = stream.release();
    if (session !== undefined) this.#gateway.keepAlive(session.key);
  }
}

/** The filter of a listen request, or why it is refused. */
function filterOf(body: Record<string, unknown>): ListenFilter | string {
  const params = body['params'];
  const notifications = isJsonObject(params) ? params['notifications'] : undefined;
  if (!isJsonObject(notifications))
    return 'subscriptions/listen needs params.notifications, an object such as { toolsListChanged: true }';
  const uris = notifications['resourceSubscriptions'];
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((uri) => typeof uri === 'string')))
    return 'params.notifications.resourceSubscriptions must be a list of resource URIs';
  if (uris !== undefined && uris.length > MAX_LISTEN_URIS)
    return (
      `params.notifications.resourceSubscriptions lists ${uris.length} URIs, more than the ` +
      `${MAX_LISTEN_URIS} one stream may watch: split them over several streams`
    );
  const flag = (name: string): boolean => notifications[name] === true;
  return {
    toolsListChanged: flag('toolsListChanged'),
    promptsListChanged: flag('promptsListChanged'),
    resourcesListChanged: flag('resourcesListChanged'),
    ...(uris === undefined ? {} : { resourceSubscriptions: [...new Set(uris.map(String))] }),
  };
}

function clientOf(info: unknown): { name: string; version?: string } | undefined {
  if (!isJsonObject(info) || typeof info['name'] !== 'string') return undefined;
  const version = info['version'];
  return {
    name: info['name'].slice(0, 100),
    ...(typeof version === 'string' ? { version: version.slice(0, 50) } : {}),
  };
}

/** Streams are counted per API key's caller: its tenant, user and key. */
function callerKey(identity: GatewayIdentity): string {
  return JSON.stringify([identity.tenantId ?? null, identity.userId ?? null, identity.keyId ?? null]);
}

/** The JSON-RPC error code of a refused listen: what the client asked (-32602), or the gateway's bounds (-32000). */
export function listenErrorCode(error: ToolgateError): number {
  return error.code === 'not_found' || error.code === 'invalid_arguments' ? -32602 : -32000;
}

/** A refusal before the acknowledgement, in-band as the SDK's own (the client's `listen()` rejects with it). */
function inBandError(id: string | number | null, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id }, { status: 200 });
}
