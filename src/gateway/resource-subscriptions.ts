import { ToolgateError, type PassthroughSource } from '../core/index.ts';
import type { GatewaySession } from './gateway-session.ts';

/** Resources one session may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 100;

/** A subscriber without a connection of its own (a 2026-07-28 listen stream): told through `updated`. */
export interface ResourceWatcher {
  updated(uri: string): void;
}

/** Who holds subscriptions: a session (told through its connection) or a watcher. */
export type Subscriber = GatewaySession | ResourceWatcher;

interface Watched {
  /** The upstream server the subscription went to. */
  server: string | undefined;
  sessions: Set<Subscriber>;
  /** The upstream subscribe in flight: later sessions wait for it. */
  pending: Promise<void>;
}

/**
 * Resource subscriptions of every session over the shared upstream
 * connections: one upstream subscription per URI, counted across sessions
 * (subscribed for the first, unsubscribed when the last one leaves or ends).
 */
export class ResourceSubscriptions {
  readonly #passthrough: PassthroughSource;
  readonly #onError: (message: string) => void;
  readonly #watched = new Map<string, Watched>();
  readonly #bySession = new Map<Subscriber, Set<string>>();

  constructor(passthrough: PassthroughSource, onError: (message: string) => void) {
    this.#passthrough = passthrough;
    this.#onError = onError;
  }

  /** Subscribes the session (`servers`: those it may use). Rejects past its bound or when no server has the URI. */
  async subscribe(session: Subscriber, uri: string, servers: (name: string) => boolean): Promise<void> {
    const mine = this.#bySession.get(session) ?? new Set<string>();
    if (mine.has(uri)) return;
    if (mine.size >= MAX_SUBSCRIPTIONS_PER_SESSION)
      throw new ToolgateError(
        'invalid_arguments',
        `this session is subscribed to ${mine.size} resources, the most one session may watch: ` +
          'unsubscribe from one (resources/unsubscribe) first',
      );
    let watched = this.#watched.get(uri);
    if (watched === undefined) {
      const subscribe = this.#passthrough.subscribeResource;
      if (subscribe === undefined) throw new ToolgateError('not_found', 'no MCP server offers resource subscriptions');
      const entry: Watched = { server: undefined, sessions: new Set(), pending: Promise.resolve() };
      entry.pending = subscribe.call(this.#passthrough, uri, { servers }).then(({ server }) => {
        entry.server = server;
      });
      watched = entry;
      this.#watched.set(uri, entry);
      entry.pending.catch(() => {
        if (this.#watched.get(uri) === entry && entry.sessions.size === 0) this.#watched.delete(uri);
      });
    }
    await watched.pending;
    // The server that watches it must be one this session may use (another tenant may have subscribed first).
    if (watched.server === undefined || !servers(watched.server))
      throw new ToolgateError('not_found', `no MCP server open to you has resource "${uri}"`);
    watched.sessions.add(session);
    mine.add(uri);
    this.#bySession.set(session, mine);
  }

  /** The session stops watching `uri`; the upstream subscription ends with its last session. */
  unsubscribe(session: Subscriber, uri: string): void {
    const mine = this.#bySession.get(session);
    if (mine?.delete(uri) !== true) return;
    if (mine.size === 0) this.#bySession.delete(session);
    const watched = this.#watched.get(uri);
    if (watched === undefined) return;
    watched.sessions.delete(session);
    if (watched.sessions.size > 0 || watched.server === undefined) return;
    this.#watched.delete(uri);
    void this.#passthrough
      .unsubscribeResource?.(uri, watched.server)
      .catch((error: unknown) => this.#onError(`could not unsubscribe from resource ${uri}: ${String(error)}`));
  }

  /** A session ended: its subscriptions end with it. */
  end(session: Subscriber): void {
    for (const uri of [...(this.#bySession.get(session) ?? [])]) this.unsubscribe(session, uri);
  }

  /**
   * `server` was restarted (its connection opened again): it forgot what it was subscribed to, so every URI watched
   * on it is subscribed to again there. One it now refuses stays watched (it may accept after its next restart), and
   * the refusal goes to the gateway's log.
   */
  async renew(server: string): Promise<void> {
    const subscribe = this.#passthrough.subscribeResource;
    if (subscribe === undefined) return;
    const renewed = [...this.#watched].filter(([, watched]) => watched.server === server && watched.sessions.size > 0);
    await Promise.all(
      renewed.map(async ([uri]) => {
        await subscribe
          .call(this.#passthrough, uri, { servers: (name) => name === server })
          .catch((error: unknown) =>
            this.#onError(`could not subscribe again to resource ${uri} of restarted server "${server}": ${error}`),
          );
      }),
    );
  }

  /** How many resources are watched upstream. */
  get size(): number {
    return this.#watched.size;
  }

  /** The sessions subscribed to `uri` on `server`. */
  sessionsOf(uri: string, server: string): Subscriber[] {
    const watched = this.#watched.get(uri);
    return watched === undefined || watched.server !== server ? [] : [...watched.sessions];
  }
}
