import { SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY, type ServerEvent } from '@modelcontextprotocol/server';
import type { PassthroughSource } from '../core/index.ts';
import type { ToolCatalog } from '../orchestrator/call/tool-catalog.ts';
import { DEFAULT_SESSION_IDLE_MS, type Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import type { GatewayEndpoint } from './endpoints.ts';
import { itemsView, toolsView, type ListKind, type ListWatcher } from './list-changed.ts';
import { GATEWAY_SERVER_INFO } from './mcp-server.ts';
import type { ResourceWatcher } from './resource-subscriptions.ts';
import { sessionAccess, type ServerAccess } from './server-access.ts';

/** Resource URIs one listen stream may watch (as many as one session may subscribe to). */
export const MAX_LISTEN_URIS = 100;

/** What a listen stream asked to be told (the spec's SubscriptionFilter, checked). */
export interface ListenFilter {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  resourceSubscriptions?: string[];
}

const EVENTS: Record<string, ServerEvent> = {
  'notifications/tools/list_changed': { kind: 'tools_list_changed' },
  'notifications/prompts/list_changed': { kind: 'prompts_list_changed' },
  'notifications/resources/list_changed': { kind: 'resources_list_changed' },
};

/**
 * One 2026-07-28 `subscriptions/listen` stream: the caller's session it
 * belongs to (kept from idling while the stream is open), what it was shown
 * of each list it watches, and the SDK's listener that writes its
 * notifications. The gateway ends it gracefully (the spec's empty result)
 * after `gateway.sessionIdleMs`, or when its session ends.
 */
export class ListenStream implements ResourceWatcher {
  /** The listen request's id: the subscription's id. */
  readonly id: string | number;
  /** Whose share of streams it takes. */
  readonly caller: string;
  readonly endpoint: GatewayEndpoint | undefined;
  session: GatewaySession | undefined;
  /** What it was last shown of each list it watches (compared by ListChanged). */
  readonly shown = new Map<ListKind, string>();
  /** The SDK's listener: filters by the acknowledged filter, stamps the subscription id, writes the frame. */
  listener: ((event: ServerEvent) => void) | undefined;
  released = false;
  #end: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: { id: string | number; caller: string; endpoint: GatewayEndpoint | undefined }) {
    this.id = options.id;
    this.caller = options.caller;
    this.endpoint = options.endpoint;
  }

  /** The stream belongs to `session`, which does not idle while it is open (a request being served). */
  hold(session: GatewaySession): void {
    this.session = session;
    session.busy += 1;
  }

  /** What the caller is shown now of each list the filter watches: later changes are compared with it. */
  async watch(options: {
    gateway: Gateway;
    passthrough: PassthroughSource | undefined;
    catalog: ToolCatalog;
    filter: ListenFilter;
  }): Promise<void> {
    const { gateway, passthrough, catalog, filter } = options;
    if (filter.toolsListChanged) this.shown.set('tools', toolsView(catalog));
    if (passthrough === undefined) return;
    const access = this.access(gateway, catalog);
    if (filter.promptsListChanged)
      this.shown.set('prompts', itemsView((await passthrough.listPrompts()).filter(access.item)));
    if (!filter.resourcesListChanged) return;
    this.shown.set('resources', itemsView((await passthrough.listResources()).filter(access.item)));
    const templates = await passthrough.listResourceTemplates();
    this.shown.set('resourceTemplates', itemsView(templates.filter(access.item)));
  }

  /** The servers (and items) its caller may use at its endpoint: the same check as resources/read. */
  access(gateway: Gateway, catalog: ToolCatalog): ServerAccess {
    if (this.session === undefined) throw new Error('a listen stream is checked before it has a session');
    return sessionAccess(gateway, this.session, catalog);
  }

  /** As ListChanged compares it, once the SDK serves it. */
  watcher(): ListWatcher | undefined {
    const { session, listener } = this;
    if (session === undefined || listener === undefined || this.released || this.shown.size === 0) return undefined;
    return {
      session,
      shown: this.shown,
      notify: async (method) => {
        const event = EVENTS[method];
        if (event !== undefined && !this.released) listener(event);
      },
    };
  }

  /** A resource it subscribed to changed (ResourceSubscriptions told only its subscribers). */
  updated(uri: string): void {
    if (!this.released) this.listener?.({ kind: 'resource_updated', uri });
  }

  /**
   * The SDK's stream, ended by the gateway when it must: the spec's empty `subscriptions/listen` result is written
   * between two of the SDK's frames (each chunk is one whole frame), then the SDK's side is cancelled.
   */
  serve(response: Response, lifetimeMs: number | undefined): Response {
    const body = response.body;
    if (body === null) return response;
    const reader = body.getReader();
    const last = new TextEncoder().encode(
      `event: message\ndata: ${JSON.stringify({
        jsonrpc: '2.0',
        id: this.id,
        result: {
          resultType: 'complete',
          _meta: { [SUBSCRIPTION_ID_META_KEY]: this.id, [SERVER_INFO_META_KEY]: GATEWAY_SERVER_INFO },
        },
      })}\n\n`,
    );
    const wrapped = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#end = () => {
          try {
            controller.enqueue(last);
            controller.close();
          } catch {
            // Already closed: the client left or the SDK ended it.
          }
          void reader.cancel().catch(() => undefined);
        };
      },
      pull: async (controller) => {
        const next = await reader.read().catch(() => undefined);
        try {
          if (next === undefined || next.done) controller.close();
          else controller.enqueue(next.value);
        } catch {
          // Ended by the gateway meanwhile.
        }
      },
      cancel: () => reader.cancel().catch(() => undefined),
    });
    this.#timer = setTimeout(() => this.close(), lifetimeMs ?? DEFAULT_SESSION_IDLE_MS);
    this.#timer.unref();
    return new Response(wrapped, { status: response.status, headers: response.headers });
  }

  /** Ends the stream gracefully, if the SDK serves it already. */
  close(): void {
    this.#end?.();
  }

  /** It is gone: the session it held may idle again (returned so that its idle clock restarts). */
  release(): GatewaySession | undefined {
    if (this.released) return undefined;
    this.released = true;
    clearTimeout(this.#timer);
    if (this.session !== undefined) this.session.busy -= 1;
    return this.session;
  }
}
