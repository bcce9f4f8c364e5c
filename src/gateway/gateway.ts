import {
  ToolgateError,
  type GatewaySessionSettings,
  type EventDraft,
  type LimitStore,
  type RunEvent,
  type RunStore,
  type SessionToolsFactory,
} from '../core/index.ts';
import { buildToolCatalog, type ToolCatalog } from '../orchestrator/call/tool-catalog.ts';
import { refuseChangedTools } from './changed-tools.ts';
import { narrowToEndpoint, type GatewayEndpoint, type GatewayEndpoints } from './endpoints.ts';
import { GatewayRun } from './gateway-run.ts';
import { GatewaySession, type GatewayIdentity } from './gateway-session.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { RequestStateCodec } from './request-state.ts';
import { SessionShares } from './session-shares.ts';
import type { GatewayEnvironment } from './session-run.ts';
import type { SamplingDecision } from './upstream-requests.ts';
import { UpstreamTools, type UpstreamToolsOptions } from './upstream-tools.ts';

/** Events of upstream requests kept while a session's run is not open yet (a server asks for roots at connect). */
const MAX_PENDING_EVENTS = 20;
/** Default `gateway.approvalTimeoutMs`: a held call with no decision after this long is refused. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;
/** Default `gateway.sessionIdleMs`: an HTTP session with no request for this long ends (its run completes). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/**
 * Default `gateway.maxSessions`: open sessions per gateway process (each tenant's and key's share: session-shares.ts).
 */
export const DEFAULT_MAX_SESSIONS = 1000;

/** With the upstream tools (listTools, refreshTools, relistMs, checkPins: see UpstreamToolsOptions). */
export interface GatewayOptions extends UpstreamToolsOptions {
  store: RunStore;
  /** Lease owner id of this process. */
  owner: string;
  leaseMs: number;
  environment: GatewayEnvironment;
  approvalTimeoutMs?: number | undefined;
  sessionIdleMs?: number | undefined;
  /** `gateway.sessionUpstreamIdleMs`: a session's own upstream connections close after this long unused. */
  sessionUpstreamIdleMs?: number | undefined;
  maxSessions?: number | undefined;
  /** Open sessions one tenant may hold across every instance on the store (default: maxSessions, no share). */
  maxSessionsPerTenant?: number | undefined;
  /** Open sessions one API key may hold, by the key's tenant (default: the tenant's share). */
  maxSessionsPerKey?: ((tenantId: string | undefined) => number) | undefined;
  /** Where the shares are counted (default: the store's, shared by every process on it). */
  limits?: LimitStore | undefined;
  maxResultBytes: number;
  rateLimiter?: RateLimiter | undefined;
  /** Virtual servers by path (`gateway.endpoints`): a session's catalog is narrowed to its endpoint's. */
  endpoints?: GatewayEndpoints | undefined;
  /** Ask the client's user through MCP elicitation when the client can (default true). */
  elicitation?: boolean | undefined;
  /**
   * Opens a session's own upstream connections, declaring its client's sampling, elicitation and roots
   * (session-upstream.ts); absent: every session shares the gateway's connections, which declare none.
   */
  sessionTools?: SessionToolsFactory | undefined;
  /** `gateway.sampling`: what becomes of one server's sampling requests (default DEFAULT_SAMPLING). */
  sampling?: ((server: string) => SamplingDecision) | undefined;
  /** `gateway.roots`: the client roots upstream servers may see (absent: all of them). */
  roots?: readonly string[] | undefined;
  /** Signs elicitation request state (`gateway.stateSecret`); default: random per process. */
  stateSecret?: string | undefined;
  /**
   * `gateway.forwardLogs`: upstream log messages of the shared connections go to the clients of sessions that set a
   * log level and may use that server (default false: only to the gateway's own log, `onLog`).
   */
  forwardLogs?: boolean | undefined;
  /** The gateway process's own log (upstream servers' log messages); default: onError. */
  onLog?: ((message: string) => void) | undefined;
  onEvents?: ((events: readonly RunEvent[]) => void) | undefined;
  onError?: ((message: string) => void) | undefined;
}

/**
 * Gateway mode: upstream MCP tools offered to any MCP client through the same
 * gate runs use. One client session is one run; its calls are recorded as the
 * run's events, so the runs API, the console, /metrics and traces show gateway
 * traffic like any run. Protocol faces (stdio, Streamable HTTP) live beside
 * this class and ask it for sessions, catalogs and calls.
 */
export class Gateway {
  readonly options: GatewayOptions;
  readonly codec: RequestStateCodec;
  readonly #sessions = new Map<string, GatewaySession>();
  /** Sessions being admitted (their places taken in the store): two first requests of one session make one. */
  readonly #admitting = new Map<string, Promise<GatewaySession>>();
  readonly #shares: SessionShares;
  readonly #endListeners = new Set<(key: string) => void>();
  readonly #upstream: UpstreamTools;
  #closed = false;

  constructor(options: GatewayOptions) {
    this.options = options;
    this.codec = new RequestStateCodec(options.stateSecret);
    this.#upstream = new UpstreamTools(options);
    const perTenant = options.maxSessionsPerTenant ?? this.maxSessions;
    this.#shares = new SessionShares({
      limits: options.limits ?? options.store.limits,
      holder: options.owner,
      ttlMs: options.leaseMs,
      perTenant,
      perKey: options.maxSessionsPerKey ?? (() => perTenant),
      onError: options.onError,
    });
  }

  get approvalTimeoutMs(): number {
    return this.options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  get elicitation(): boolean {
    return this.options.elicitation ?? true;
  }

  get maxSessions(): number {
    return this.options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  }

  /** Sessions open now. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * The session for `key`, made on first use — refused with `overloaded`
   * beyond gateway.maxSessions in this process, or beyond the tenant's or the
   * key's share across the store — and its idle clock restarts.
   */
  async session(
    key: string,
    identity: GatewayIdentity,
    settings: Omit<GatewaySessionSettings, 'dryRun'>,
  ): Promise<GatewaySession> {
    const session = this.#sessions.get(key) ?? (await this.#admit(key, identity, settings));
    // Admitted before the client said who it is (a 2025-era initialize): the first request that knows completes it,
    // before the run opens.
    if (
      session.run === undefined &&
      session.opening === undefined &&
      settings.client !== undefined &&
      session.settings.client === undefined
    ) {
      session.settings = { ...settings, dryRun: identity.dryRun };
    }
    this.#touch(session);
    return session;
  }

  #admit(
    key: string,
    identity: GatewayIdentity,
    settings: Omit<GatewaySessionSettings, 'dryRun'>,
  ): Promise<GatewaySession> {
    const pending = this.#admitting.get(key);
    if (pending !== undefined) return pending;
    if (this.#closed) throw new ToolgateError('shutting_down', 'the gateway is shutting down; reconnect in a moment');
    const open = this.#sessions.size + this.#admitting.size;
    if (open >= this.maxSessions) {
      throw new ToolgateError(
        'overloaded',
        `the gateway has ${open} open sessions, its limit (gateway.maxSessions); retry when one has ended`,
      );
    }
    const admitting = (async () => {
      const session = new GatewaySession(key, identity, { ...settings, dryRun: identity.dryRun });
      await this.#shares.admit(session.slotId, identity);
      if (this.#closed) {
        // Stopped while the place was being taken: it is given back, not kept by a session nobody will end.
        await this.#shares.release(session.slotId).catch(() => undefined);
        throw new ToolgateError('shutting_down', 'the gateway is shutting down; reconnect in a moment');
      }
      this.#sessions.set(key, session);
      return session;
    })().finally(() => this.#admitting.delete(key));
    this.#admitting.set(key, admitting);
    return admitting;
  }

  /**
   * Any request of the session's client (a 2025-era session's SSE stream, a notification): its idle clock starts again.
   */
  keepAlive(key: string): void {
    const session = this.#sessions.get(key);
    if (session !== undefined) this.#touch(session);
  }

  /** Serves one request of the session: its idle clock starts again when the request ends. */
  async serve<T>(session: GatewaySession, work: () => Promise<T>): Promise<T> {
    session.busy += 1;
    try {
      return await work();
    } finally {
      session.busy -= 1;
      this.#touch(session);
    }
  }

  /** The session whose run is `runId` (an approval coming back through the client). */
  sessionOfRun(runId: string): GatewaySession | undefined {
    for (const session of this.#sessions.values()) if (session.run?.runId === runId) return session;
    return undefined;
  }

  /** The session's run, opened on first use (again after a cancel ended the previous one). */
  async runOf(session: GatewaySession, toolNames: readonly string[]): Promise<GatewayRun> {
    if (this.#closed) throw new Error('the gateway is shutting down');
    if (session.run !== undefined && !session.run.ended) return session.run;
    session.opening ??= GatewayRun.open({
      store: this.options.store,
      owner: this.options.owner,
      leaseMs: this.options.leaseMs,
      environment:
        session.upstream === undefined
          ? this.options.environment
          : { ...this.options.environment, tools: session.upstream.set.tools },
      tenantId: session.identity.tenantId,
      userId: session.identity.userId,
      roles: session.identity.roles,
      session: session.settings,
      approvalTimeoutMs: this.approvalTimeoutMs,
      toolNames,
      onEvents: this.options.onEvents,
    }).finally(() => {
      session.opening = undefined;
    });
    const run = await session.opening;
    session.run = run;
    session.toldChanged.clear();
    const pending = session.pendingEvents.splice(0);
    if (pending.length > 0) await run.record(pending);
    return run;
  }

  /**
   * The tools the session's tenant may use, as the gate sees them: denied tools
   * and tools whose definition changed since they were pinned are refused with
   * their reason, and a change is recorded in the session's run once.
   */
  async catalog(
    session: GatewaySession,
    options: { relist?: boolean; force?: boolean } = {},
  ): Promise<{ catalog: ToolCatalog; run: GatewayRun }> {
    const { tools, pins } = await (session.upstream?.listing ?? this.#upstream).list(options);
    const { policy } = this.options.environment;
    const tenantId = session.identity.tenantId;
    const { roles } = session.identity;
    const built = narrowToEndpoint(
      buildToolCatalog(pins === undefined ? tools : pins.visible, { policy, tenantId, roles }),
      this.endpointOf(session),
    );
    const run = await this.runOf(
      session,
      built.definitions.map((d) => d.name),
    );
    if (pins === undefined || pins.changed.length === 0) return { catalog: built, run };
    const { catalog, news } = refuseChangedTools({
      catalog: built,
      changed: pins.changed,
      policy,
      tenantId,
      told: session.toldChanged,
    });
    if (news.length > 0) await run.record(news);
    return { catalog, run };
  }

  /** The virtual server the session came through, if any (GatewaySessionSettings.endpoint). */
  endpointOf(session: GatewaySession): GatewayEndpoint | undefined {
    const path = session.settings.endpoint;
    return path === undefined ? undefined : this.options.endpoints?.get(path);
  }

  /** Records in the session's run, or keeps for when it opens (a bounded number). */
  recordInSession(session: GatewaySession, drafts: EventDraft[]): void {
    const run = session.run;
    if (run !== undefined && !run.ended) {
      void run
        .record(drafts)
        .catch((error: unknown) =>
          this.options.onError?.(
            `gateway session ${session.key}: could not record ${drafts[0]?.type ?? 'an event'}: ${String(error)}`,
          ),
        );
      return;
    }
    for (const event of drafts)
      if (session.pendingEvents.length < MAX_PENDING_EVENTS) session.pendingEvents.push(event);
  }

  /** Told the key of every session that ends (a transport holding one lets it go). */
  onSessionEnd(listener: (key: string) => void): void {
    this.#endListeners.add(listener);
  }

  /** Ends one session: its run completes (calls still held are refused first). */
  async endSession(key: string, reason: string): Promise<void> {
    const session = this.#sessions.get(key);
    if (session === undefined) return;
    this.#sessions.delete(key);
    clearTimeout(session.idleTimer);
    for (const listener of this.#endListeners) listener(key);
    await this.#shares
      .release(session.slotId)
      .catch((error: unknown) =>
        this.options.onError?.(
          `gateway session ${key}: its place could not be freed in the store ` +
            `(it frees itself after ${this.options.leaseMs} ms): ${String(error)}`,
        ),
      );
    const run = session.run ?? (await session.opening?.catch(() => undefined));
    if (run !== undefined && !run.ended) await run.end({ status: 'completed', reason });
    session.exchanges?.close();
    await session.upstream?.set.close().catch(() => undefined);
  }

  /** Ends every session. */
  async close(reason = 'the gateway stopped'): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#sessions.keys()].map((key) => this.endSession(key, reason)));
    this.#shares.stop();
  }

  #touch(session: GatewaySession): void {
    clearTimeout(session.idleTimer);
    if (session.settings.transport !== 'http') return;
    const idleMs = this.options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    session.idleTimer = setTimeout(() => {
      if (session.busy > 0) {
        this.#touch(session);
        return;
      }
      void this.endSession(session.key, `no request for ${Math.round(idleMs / 1000)} s`).catch((error: unknown) =>
        this.options.onError?.(`gateway session ${session.key} did not end cleanly: ${String(error)}`),
      );
    }, idleMs);
    session.idleTimer.unref();
  }
}
