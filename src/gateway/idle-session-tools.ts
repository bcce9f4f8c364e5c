import {
  ToolgateError,
  type CallToolRequest,
  type CompletionRequest,
  type PassthroughRequestOptions,
  type PassthroughSource,
  type SessionToolSet,
  type ToolListing,
  type ToolSource,
} from '../core/index.ts';

/** Default `gateway.sessionUpstreamIdleMs`: a session's own upstream connections close after this long unused. */
export const DEFAULT_SESSION_UPSTREAM_IDLE_MS = 5 * 60_000;

export interface IdleSessionToolsOptions {
  /** Opens the connections (again): each call makes a new set, whose servers start at its first use. */
  open: () => SessionToolSet;
  idleMs: number;
  /** Whether the connections must stay open although unused (the session is subscribed to resources on them). */
  keepOpen: () => boolean;
  /** The connections were closed for being idle (their subscriptions, if any, are gone with them). */
  onIdleClose?: (() => void) | undefined;
}

/**
 * A session's own upstream connections, closed when unused for `idleMs` and opened again by the next request: a
 * client that goes away without ending its session would otherwise keep one server process per stdio server until
 * `gateway.sessionIdleMs`. The tools and passthrough objects stay the same across reopenings (the session's run holds
 * them). A request in flight keeps the connections open.
 */
export class IdleSessionTools implements SessionToolSet {
  readonly tools: ToolSource;
  readonly passthrough: PassthroughSource;
  readonly #options: IdleSessionToolsOptions;
  #inner: SessionToolSet | undefined;
  #busy = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: IdleSessionToolsOptions) {
    this.#options = options;
    this.passthrough = this.#routedPassthrough();
    this.tools = {
      name: 'session',
      listTools: (request) => this.#use((set) => set.tools.listTools(request)),
      callTool: (request: CallToolRequest) => this.#use((set) => set.tools.callTool(request)),
      // The run's environment does not own these connections: the session closes them.
      close: () => Promise.resolve(),
      listing: (request) => this.#use((set): Promise<ToolListing> => listingOf(set.tools, request)),
      passthrough: this.passthrough,
    };
  }

  list = (): ReturnType<SessionToolSet['list']> => this.#use((set) => set.list());

  /** Closed connections list afresh when opened again: only open ones are asked. */
  refresh = (): void => this.#inner?.refresh();

  /** Closed connections ask for the roots when opened again: only open ones are told. */
  rootsChanged = (): void => this.#inner?.rootsChanged();

  close = async (): Promise<void> => {
    this.#closed = true;
    clearTimeout(this.#timer);
    const inner = this.#inner;
    this.#inner = undefined;
    await inner?.close();
  };

  async #use<T>(work: (set: SessionToolSet) => Promise<T>): Promise<T> {
    if (this.#closed) throw new ToolgateError('tool_unavailable', 'the session ended: its upstream connections closed');
    this.#inner ??= this.#options.open();
    this.#busy += 1;
    try {
      return await work(this.#inner);
    } finally {
      this.#busy -= 1;
      this.#touch();
    }
  }

  #touch(): void {
    clearTimeout(this.#timer);
    if (this.#closed || this.#inner === undefined) return;
    this.#timer = setTimeout(() => {
      if (this.#busy > 0 || this.#options.keepOpen()) return this.#touch();
      const inner = this.#inner;
      this.#inner = undefined;
      this.#options.onIdleClose?.();
      void inner?.close().catch(() => undefined);
    }, this.#options.idleMs);
    this.#timer.unref();
  }

  #routedPassthrough(): PassthroughSource {
    const through = <T>(work: (p: PassthroughSource) => Promise<T>): Promise<T> =>
      this.#use((set) => {
        const passthrough = set.tools.passthrough;
        if (passthrough === undefined) throw new ToolgateError('not_found', 'no MCP server has resources or prompts');
        return work(passthrough);
      });
    return {
      listResources: (o?: { signal?: AbortSignal }) => through((p) => p.listResources(o)),
      listResourceTemplates: (o?: { signal?: AbortSignal }) => through((p) => p.listResourceTemplates(o)),
      readResource: (uri: string, o?: PassthroughRequestOptions) => through((p) => p.readResource(uri, o)),
      listPrompts: (o?: { signal?: AbortSignal }) => through((p) => p.listPrompts(o)),
      getPrompt: (name: string, args?: Record<string, string>, o?: PassthroughRequestOptions) =>
        through((p) => p.getPrompt(name, args, o)),
      complete: (request: CompletionRequest, o?: PassthroughRequestOptions) =>
        through((p) => p.complete?.(request, o) ?? Promise.resolve({ completion: { values: [], hasMore: false } })),
      subscribeResource: (uri: string, o?: PassthroughRequestOptions) =>
        through((p) => {
          if (p.subscribeResource === undefined)
            throw new ToolgateError('not_found', 'no MCP server offers resource subscriptions');
          return p.subscribeResource(uri, o);
        }),
      // Only while open: a subscription does not outlive the connection it was made on.
      unsubscribeResource: async (uri: string, server: string) =>
        this.#inner?.tools.passthrough?.unsubscribeResource?.(uri, server),
      offersSubscribe: () => this.#inner?.tools.passthrough?.offersSubscribe?.() ?? false,
    };
  }
}

function listingOf(source: ToolSource, request: { signal?: AbortSignal } | undefined): Promise<ToolListing> {
  const { listing } = source;
  if (listing !== undefined) return listing.call(source, request);
  return source.listTools(request).then((tools) => ({ tools, unavailable: [] }));
}
