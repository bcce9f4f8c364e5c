import { randomBytes } from 'node:crypto';
import type { RunEvent, RunStore, ToolSpec } from '../../core/index.ts';
import { toolRefOf, type ToolRef } from '../../gate/match-tool-pattern.ts';
import { ApprovalNotifier, type NotifyLog } from './approval-notifier.ts';
import { ApprovalSweeper, type ApprovalDecision } from './approval-sweeper.ts';
import { createDecisionLinks } from './decision-links.ts';
import { nameOnlyRef } from './match-target.ts';
import { waitingCallOf, type ApprovalsConfig } from './waiting-call.ts';
import { watchAppends } from './watch-appends.ts';

/** How long a decision link works when `approvals.linkTtlMs` is not set: a day. */
export const DEFAULT_LINK_TTL_MS = 86_400_000;

export interface ApprovalsStart {
  /** The store toolgate writes through (the one `watch` returned). */
  store: RunStore;
  /** Where this server listens, when it does (the last choice of the links' base URL). */
  serverUrl: () => string;
  /** Records a decision through the runs' input path and drives the run on (RunManager.submitInput). */
  decide: (runId: string, input: ApprovalDecision) => Promise<unknown>;
  /** The tools known now, so that `server/tool` patterns of notify targets match. */
  knownTools?: () => Promise<{ spec: ToolSpec }[]>;
  log: NotifyLog;
  /** Tests make these small. */
  rescanMs?: number;
  notifyGraceMs?: number;
  retryBaseMs?: number;
}

/**
 * Approvals outside the console for one process (docs/approvals.md): notifications of every call that begins to wait
 * here, whatever started its run (the runs API, a gateway session, a fork), and the timeouts of every waiting call of
 * the store. `watch` wraps the store before anything writes through it; `start` once the server listens; `close` on
 * shutdown.
 */
export class ApprovalsRuntime {
  readonly config: ApprovalsConfig;
  /** Signs and checks decision links: approvals.linkSecret ?? server.sessionSecret ?? random (see `randomSecret`). */
  readonly linkSecret: string;
  /** True when no secret was configured: links then stop working when the process restarts. */
  readonly randomSecret: boolean;
  readonly #resource: string | undefined;
  #notifier: ApprovalNotifier | undefined;
  #sweeper: ApprovalSweeper | undefined;
  #listener: ((runId: string, events: readonly RunEvent[]) => void) | undefined;

  constructor(options: { config?: ApprovalsConfig; resource?: string; sessionSecret?: string }) {
    this.config = options.config ?? {};
    this.#resource = options.resource;
    const configured = this.config.linkSecret ?? options.sessionSecret;
    this.randomSecret = configured === undefined;
    this.linkSecret = configured ?? randomBytes(32).toString('base64url');
  }

  /** Whether anything is configured to happen to a waiting call (targets or a timeout). */
  get active(): boolean {
    const escalation = this.config.escalation?.notify?.length ?? 0;
    return (this.config.notify?.length ?? 0) + escalation > 0 || this.config.timeoutMs !== undefined;
  }

  /**
   * `store` as toolgate should use it: every append through it is seen (approval_required starts a notification) —
   * the store itself when approvals are not configured.
   */
  watch<S extends RunStore>(store: S): S {
    // Nothing to notify or time out: every append of every run goes straight to the store.
    if (!this.active) return store;
    return watchAppends(store, (runId, events) => this.#listener?.(runId, events));
  }

  /** Links' base URL: approvals.publicUrl ?? auth.resource ?? the server's own URL. */
  baseUrl(serverUrl: () => string): () => string {
    const fixed = this.config.publicUrl ?? this.#resource;
    return () => (fixed ?? serverUrl()).replace(/\/+$/, '');
  }

  async start(options: ApprovalsStart): Promise<void> {
    if (!this.active || this.#sweeper !== undefined) return;
    const baseUrl = this.baseUrl(options.serverUrl);
    const refs = new Map<string, ToolRef>();
    const known = await options.knownTools?.().catch(() => []);
    for (const { spec } of known ?? []) refs.set(spec.name, toolRefOf(spec));
    const notifier = new ApprovalNotifier({
      store: options.store,
      baseUrl,
      log: options.log,
      toolRef: (name) => refs.get(name) ?? nameOnlyRef(name),
      links: createDecisionLinks({
        secret: this.linkSecret,
        baseUrl,
        ttlMs: this.config.linkTtlMs ?? DEFAULT_LINK_TTL_MS,
      }),
      ...(options.retryBaseMs === undefined ? {} : { retryBaseMs: options.retryBaseMs }),
    });
    const sweeper = new ApprovalSweeper({
      store: options.store,
      config: this.config,
      notifier,
      decide: options.decide,
      log: options.log,
      ...(options.rescanMs === undefined ? {} : { rescanMs: options.rescanMs }),
      ...(options.notifyGraceMs === undefined ? {} : { notifyGraceMs: options.notifyGraceMs }),
    });
    this.#notifier = notifier;
    this.#sweeper = sweeper;
    this.#listener = (runId, events) => {
      for (const event of events) {
        if (event.type === 'approval_required') void this.#began(options.store, runId, event.time);
      }
    };
    await sweeper.start();
  }

  /** A call began to wait: notify its targets now, and queue its deadline. */
  async #began(store: RunStore, runId: string, since: string): Promise<void> {
    try {
      const run = await store.getRun(runId);
      const call = run === undefined ? undefined : waitingCallOf(run, since);
      if (call === undefined) return;
      this.#sweeper?.waiting(call, run?.lastEventId);
      await this.#notifier?.notify(call, { round: 'first', targets: this.config.notify ?? [] });
    } catch {
      // The sweep notifies what was missed here (at-least-once): a notification never fails a run.
    }
  }

  /** Stops the timer, stops retrying and waits for the deliveries under way to be recorded. */
  async close(): Promise<void> {
    this.#listener = undefined;
    await this.#sweeper?.close();
    await this.#notifier?.close();
  }
}
