import { canonicalJson, type JsonObject, type PassthroughSource } from '../core/index.ts';
import type { ToolCatalog } from '../orchestrator/call/tool-catalog.ts';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import { sessionAccess } from './server-access.ts';

/** How long a burst of upstream list changes is gathered before the sessions' views are compared. */
export const LIST_CHANGED_DEBOUNCE_MS = 200;

/** The lists a client is shown; resources and their templates share one notification. */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

const NOTIFICATION = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
  resourceTemplates: 'notifications/resources/list_changed',
} as const;

/** Someone told of list changes other than through a session's connection (a 2026-07-28 listen stream). */
export interface ListWatcher {
  /** Whose view is compared: its tenant, roles and endpoint. */
  session: GatewaySession;
  /** What it was last shown of each kind it watches. */
  shown: Map<ListKind, string>;
  notify: (method: string) => Promise<void>;
}

/** What a client is shown of the tools, as compared: each tool's name and definition. */
export function toolsView(catalog: ToolCatalog): string {
  return canonicalJson(
    [...catalog.visible.values()]
      .map((entry) => entry.definition)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((d) => ({ name: d.name, description: d.description, parameters: d.parameters })),
  );
}

/** What a client is shown of passed-through items, as compared. */
export function itemsView(items: readonly JsonObject[]): string {
  return canonicalJson(items);
}

/**
 * Upstream list changes, told to the sessions whose view changed: after a
 * burst settles the gateway lists again (tools through the catalog, so pins
 * and tenant visibility are checked again), and a session is notified only
 * when what it would be shown now differs from what it was last shown. A
 * session that never listed a kind is not notified of it.
 */
export class ListChanged {
  readonly #gateway: Gateway;
  readonly #passthrough: PassthroughSource | undefined;
  readonly #sessions: () => Iterable<GatewaySession>;
  readonly #shown: WeakMap<GatewaySession, Map<ListKind, string>>;
  readonly #pending = new Set<ListKind>();
  readonly #watchers = new Set<() => Iterable<ListWatcher>>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: {
    gateway: Gateway;
    passthrough: PassthroughSource | undefined;
    sessions: () => Iterable<GatewaySession>;
    /** Shares what sessions were shown with another (a session's own connections', and the shared ones'). */
    shownBy?: ListChanged | undefined;
  }) {
    this.#shown = options.shownBy === undefined ? new WeakMap() : options.shownBy.#shown;
    this.#gateway = options.gateway;
    this.#passthrough = options.passthrough;
    this.#sessions = options.sessions;
  }

  /** What the session was just shown of one list (its tools/list, prompts/list, … answer). */
  remember(session: GatewaySession, kind: ListKind, view: string): void {
    const shown = this.#shown.get(session) ?? new Map<ListKind, string>();
    shown.set(kind, view);
    this.#shown.set(session, shown);
  }

  /** Watchers to compare besides the sessions with a connection, from now on. */
  watch(source: () => Iterable<ListWatcher>): void {
    this.#watchers.add(source);
  }

  /** An upstream server's list changed: compared once the burst settles. */
  changed(kind: 'tools' | 'prompts' | 'resources'): void {
    this.#pending.add(kind);
    if (kind === 'resources') this.#pending.add('resourceTemplates');
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const kinds = [...this.#pending];
      this.#pending.clear();
      void this.#compare(kinds).catch((error: unknown) =>
        this.#gateway.options.onError?.(`gateway: could not compare the lists after an upstream change: ${error}`),
      );
    }, LIST_CHANGED_DEBOUNCE_MS);
    this.#timer.unref();
  }

  async #compare(kinds: readonly ListKind[]): Promise<void> {
    const passthrough = this.#passthrough;
    const lists = new Map<ListKind, JsonObject[]>();
    if (passthrough !== undefined) {
      if (kinds.includes('prompts')) lists.set('prompts', await passthrough.listPrompts());
      if (kinds.includes('resources')) lists.set('resources', await passthrough.listResources());
      if (kinds.includes('resourceTemplates'))
        lists.set('resourceTemplates', await passthrough.listResourceTemplates());
    }
    let force = kinds.includes('tools');
    const targets: ListWatcher[] = [];
    for (const session of this.#sessions()) {
      const shown = this.#shown.get(session);
      const peer = session.peer;
      if (peer === undefined || shown === undefined) continue;
      targets.push({ session, shown, notify: (method) => peer.notification({ method }).catch(() => undefined) });
    }
    for (const source of this.#watchers) targets.push(...source());
    for (const { session, shown, notify } of targets) {
      const watched = kinds.filter((kind) => shown.has(kind));
      if (watched.length === 0) continue;
      // The upstream servers list their tools again once per burst; the other sessions reuse that listing.
      const { catalog } = await this.#gateway.catalog(session, force ? { relist: true, force: true } : {});
      force = false;
      const access = sessionAccess(this.#gateway, session, catalog);
      const told = new Set<string>();
      for (const kind of watched) {
        const now = kind === 'tools' ? toolsView(catalog) : itemsView((lists.get(kind) ?? []).filter(access.item));
        if (now === shown.get(kind)) continue;
        shown.set(kind, now);
        const method = NOTIFICATION[kind];
        if (told.has(method)) continue;
        told.add(method);
        await notify(method);
      }
    }
  }
}
