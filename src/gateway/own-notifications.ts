import type { PassthroughSource, UpstreamNotification } from '../core/index.ts';
import { forwardLog } from './forward-log.ts';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import { ListChanged } from './list-changed.ts';
import { ResourceSubscriptions } from './resource-subscriptions.ts';
import type { SessionUpstreamHooks } from './session-upstream.ts';

const owned = new WeakMap<GatewaySession, OwnNotifications>();

/**
 * The notifications of a session's own upstream connections, which concern that session alone, handled as the
 * shared connections' are for every session (upstream-hub.ts): a list change re-lists the session's view through
 * the same pin and tenant checks (ListChanged, sharing what it was shown with the shared connections' instance) and
 * notifies it only if that view changed; a resource update reaches it when it subscribed to that URI on them.
 */
export class OwnNotifications {
  readonly #gateway: Gateway;
  readonly #session: GatewaySession;
  readonly #shownBy: ListChanged;
  #lists: ListChanged | undefined;
  #subscriptions: ResourceSubscriptions | undefined;

  /** The hooks for the session's own connections; one OwnNotifications per session. */
  static hooks(options: { gateway: Gateway; session: GatewaySession; shownBy: ListChanged }): SessionUpstreamHooks {
    const { gateway, session } = options;
    const own = owned.get(session) ?? new OwnNotifications(options);
    owned.set(session, own);
    return {
      onLog: (server, params) => void forwardLog({ gateway, session, server, params }),
      onNotification: (notification) =>
        void own
          .#dispatch(notification)
          .catch((error: unknown) =>
            gateway.options.onError?.(`gateway session ${session.key}: upstream notification: ${String(error)}`),
          ),
      keepOpen: () => (own.#subscriptions?.size ?? 0) > 0,
    };
  }

  /** The subscriptions a session makes on its own connections; undefined when it shares the gateway's. */
  static subscriptionsOf(session: GatewaySession): ResourceSubscriptions | undefined {
    const own = owned.get(session);
    const passthrough = session.upstream?.set.tools.passthrough;
    if (own === undefined || passthrough === undefined) return undefined;
    own.#subscriptions ??= new ResourceSubscriptions(passthrough, (message) =>
      own.#gateway.options.onError?.(`gateway session ${session.key}: ${message}`),
    );
    return own.#subscriptions;
  }

  private constructor(options: { gateway: Gateway; session: GatewaySession; shownBy: ListChanged }) {
    this.#gateway = options.gateway;
    this.#session = options.session;
    this.#shownBy = options.shownBy;
  }

  async #dispatch(notification: UpstreamNotification): Promise<void> {
    const passthrough = this.#session.upstream?.set.tools.passthrough;
    if (passthrough === undefined) return;
    switch (notification.kind) {
      case 'tools_list_changed':
        return this.#listsOn(passthrough).changed('tools');
      case 'prompts_list_changed':
        return this.#listsOn(passthrough).changed('prompts');
      case 'resources_list_changed':
        return this.#listsOn(passthrough).changed('resources');
      case 'resource_updated': {
        const subscribed = this.#subscriptions?.sessionsOf(notification.uri, notification.server) ?? [];
        if (subscribed.length === 0) return;
        await this.#session.peer
          ?.notification({ method: 'notifications/resources/updated', params: { uri: notification.uri } })
          .catch(() => undefined);
        return;
      }
      case 'reconnected':
        return this.#subscriptions?.renew(notification.server);
      case 'log':
        return;
    }
  }

  #listsOn(passthrough: PassthroughSource): ListChanged {
    const session = this.#session;
    this.#lists ??= new ListChanged({
      gateway: this.#gateway,
      passthrough,
      sessions: () => [session],
      shownBy: this.#shownBy,
    });
    return this.#lists;
  }
}
