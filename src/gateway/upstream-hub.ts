import { canonicalJson, type PassthroughSource, type UpstreamNotification } from '../core/index.ts';
import { forwardLog } from './forward-log.ts';
import type { Gateway } from './gateway.ts';
import { GatewaySession } from './gateway-session.ts';
import { ListChanged } from './list-changed.ts';
import { sessionLogLevel } from './log-level.ts';
import { ResourceSubscriptions } from './resource-subscriptions.ts';
import { sessionAccess } from './server-access.ts';

/** Longest upstream log line written to the gateway's own log. */
const MAX_OWN_LOG_LINE = 2000;

const hubs = new WeakMap<Gateway, UpstreamHub>();

/**
 * What the upstream servers' notifications on the shared connections become
 * for the gateway's sessions: list changes (ListChanged), resource updates
 * (to the sessions subscribed), log messages (the gateway's own log; clients
 * only with `gateway.forwardLogs`). One per gateway, made on first use.
 */
export class UpstreamHub {
  readonly subscriptions: ResourceSubscriptions | undefined;
  readonly lists: ListChanged;
  readonly #gateway: Gateway;
  /** Sessions holding a connection (stdio, 2025-era HTTP): those the gateway can notify. */
  readonly #sessions = new Map<string, GatewaySession>();

  static of(gateway: Gateway, passthrough: PassthroughSource | undefined): UpstreamHub {
    let hub = hubs.get(gateway);
    if (hub === undefined) {
      hub = new UpstreamHub(gateway, passthrough);
      hubs.set(gateway, hub);
    }
    return hub;
  }

  private constructor(gateway: Gateway, passthrough: PassthroughSource | undefined) {
    this.#gateway = gateway;
    const onError = (message: string): void => gateway.options.onError?.(`gateway: ${message}`);
    this.subscriptions = passthrough === undefined ? undefined : new ResourceSubscriptions(passthrough, onError);
    // A session with connections of its own is told of their changes alone (own-notifications.ts).
    const shared = (): GatewaySession[] => [...this.#sessions.values()].filter((s) => s.upstream === undefined);
    this.lists = new ListChanged({ gateway, passthrough, sessions: shared });
    gateway.onSessionEnd((key) => {
      const session = this.#sessions.get(key);
      this.#sessions.delete(key);
      if (session !== undefined) this.subscriptions?.end(session);
    });
    passthrough?.onNotification?.((notification) => {
      void this.#dispatch(notification).catch((error: unknown) => onError(`upstream notification: ${error}`));
    });
  }

  /** A session with a connection of its own (its `peer`) is told of changes from now on. */
  attach(session: GatewaySession): void {
    if (session.peer !== undefined) this.#sessions.set(session.key, session);
  }

  async #dispatch(notification: UpstreamNotification): Promise<void> {
    switch (notification.kind) {
      case 'tools_list_changed':
        return this.lists.changed('tools');
      case 'prompts_list_changed':
        return this.lists.changed('prompts');
      case 'resources_list_changed':
        return this.lists.changed('resources');
      case 'resource_updated':
        for (const session of this.subscriptions?.sessionsOf(notification.uri, notification.server) ?? [])
          if (!(session instanceof GatewaySession)) session.updated(notification.uri);
          else
            await session.peer
              ?.notification({ method: 'notifications/resources/updated', params: { uri: notification.uri } })
              .catch(() => undefined);
        return;
      case 'log':
        return this.#log(notification);
      case 'reconnected':
        return this.subscriptions?.renew(notification.server);
    }
  }

  /** Every session's activity is on the shared connection: its log goes to clients only when configured so. */
  async #log(notification: Extract<UpstreamNotification, { kind: 'log' }>): Promise<void> {
    const { server, params } = notification;
    const { options } = this.#gateway;
    const level = typeof params['level'] === 'string' ? params['level'].slice(0, 20) : '?';
    const line = `upstream server "${server}" [${level}]: ${canonicalJson(params['data'] ?? null)}`;
    (options.onLog ?? options.onError)?.(line.slice(0, MAX_OWN_LOG_LINE));
    if (options.forwardLogs !== true) return;
    for (const session of this.#sessions.values()) {
      if (sessionLogLevel.get(session) === undefined || session.upstream !== undefined) continue;
      const { catalog } = await this.#gateway.catalog(session);
      if (sessionAccess(this.#gateway, session, catalog).server(server))
        await forwardLog({ gateway: this.#gateway, session, server, params });
    }
  }
}
