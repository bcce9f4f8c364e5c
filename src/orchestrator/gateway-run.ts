import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  ZERO_USAGE,
  draft,
  newId,
  toolError,
  type ApprovalReason,
  type EventDraft,
  type GatewaySessionSettings,
  type JsonObject,
  type JsonValue,
  type RawToolCall,
  type Run,
  type RunEvent,
  type RunInput,
  type RunLease,
  type RunSettings,
  type RunStore,
  type ToolResult,
  type ToolSource,
} from '../core/index.ts';
import { createRedactor, type Policy } from '../gate/index.ts';
import type { Validator } from '../validation/index.ts';
import { watchForDecision, type WatchedDecision } from './approval-watch.ts';
import { recordResult } from './call-events.ts';
import type { ApprovalDecision } from './conversation-state.ts';
import { executeToolCall, type ToolCallContext } from './execute-tool-call.ts';
import type { RunHooks } from './run-options.ts';
import { SessionLog } from './session-log.ts';
import { submitInput } from './submit-input.ts';
import type { CatalogEntry, ToolCatalog } from './tool-catalog.ts';
import { startPassSpan } from './tracing.ts';

/** What a gateway brings to every session: the same adapters and gate configuration runs get. */
export interface GatewayEnvironment {
  tools: ToolSource;
  policy: Policy;
  validator: Validator;
  hooks?: RunHooks | undefined;
  redact?: readonly string[] | undefined;
  toolTimeoutMs?: number | undefined;
}

export interface GatewayRunOptions {
  store: RunStore;
  /** The lease owner: unique per gateway process. */
  owner: string;
  leaseMs: number;
  environment: GatewayEnvironment;
  tenantId?: string | undefined;
  userId?: string | undefined;
  session: GatewaySessionSettings;
  /** A held call with no decision after this long is refused. */
  approvalTimeoutMs: number;
  /** The tools the client is offered when the session starts (run_started). */
  toolNames: readonly string[];
  /** Told of the events this session appends (metrics, logs). */
  onEvents?: ((events: readonly RunEvent[]) => void) | undefined;
}

/** A finished call: what goes back to the MCP client. */
export interface GatewayDone {
  toolCallId: string;
  result: ToolResult;
}

export type GatewayCallResult =
  | ({ kind: 'done' } & GatewayDone)
  | {
      kind: 'held';
      toolCallId: string;
      name: string;
      /** What the call would run with (normalised, injected, redacted): what the person is shown. */
      arguments: JsonObject;
      effect: 'read' | 'write';
      reason: ApprovalReason;
      /** Settles when the call is decided (here, by the client, or over the runs API) and done, or refused. */
      outcome: Promise<GatewayDone>;
    };

/** Why a call was refused before the gate. */
export interface GatewayRefusal {
  code: 'rate_limited';
  message: string;
}

export interface GatewayCallRequest {
  catalog: ToolCatalog;
  name: string;
  arguments: JsonObject;
  signal?: AbortSignal | undefined;
  /** The client's W3C traceparent (`_meta.traceparent`): the call's spans continue its trace. */
  traceparent?: string | undefined;
  /** Refuses the call before the gate (a rate limit, counted in the store): recorded as the gate's denial with this code and message. */
  refuse?: ((entry: CatalogEntry) => GatewayRefusal | undefined | Promise<GatewayRefusal | undefined>) | undefined;
}

interface Held {
  call: RawToolCall;
  step: number;
  abort: AbortController;
}

const SESSION_MODEL = 'mcp-client';
/** How long the outcome of a held call is kept for a client that comes back for it. */
const HELD_OUTCOME_KEEP_MS = 10 * 60_000;

/**
 * One gateway session's run: the MCP client's calls, each through
 * executeToolCall (the one path to a tool), recorded in the run's log. The
 * gateway process holds the run's lease for the session's life, so no other
 * process drives it; input reaches it through the log (approvals over the runs
 * API, a cancel). At most one call waits for a person at a time (a run has one
 * pending approval); the others queue behind it.
 */
export class GatewayRun {
  readonly runId: string;
  readonly #options: GatewayRunOptions;
  readonly #log: SessionLog;
  readonly #redact: (value: JsonValue) => JsonValue;
  readonly #abort = new AbortController();
  readonly #held = new Map<string, Held>();
  /** Outcomes of calls that were held, for a client that comes back for them (an elicitation answer). */
  readonly #heldOutcomes = new Map<string, Promise<GatewayDone>>();
  #approvalSlot: Promise<void> = Promise.resolve();
  #steps = 0;
  #ended = false;
  #ending: Promise<void> | undefined;
  #counts = { ok: 0, failed: 0, refused: 0 };

  private constructor(options: GatewayRunOptions, run: Run, lease: RunLease) {
    this.runId = run.id;
    this.#options = options;
    this.#redact = createRedactor(options.environment.redact);
    this.#log = new SessionLog({
      store: options.store,
      runId: run.id,
      lease,
      leaseMs: options.leaseMs,
      onLost: () => this.#lost(),
      onCancel: (reason) => void this.end({ status: 'cancelled', reason }).catch(() => undefined),
      onEvents: options.onEvents,
    });
  }

  /** Creates the session's run, takes its lease and records its start. */
  static async open(options: GatewayRunOptions): Promise<GatewayRun> {
    const { store, session } = options;
    const client = session.client === undefined ? 'an MCP client' : `${session.client.name}${session.client.version === undefined ? '' : ` ${session.client.version}`}`;
    const input = `MCP gateway session: ${client} over ${session.transport}`;
    const settings: RunSettings = { maxSteps: 0, strategy: 'react', toolMode: 'native', parseRetries: 0, textToolCalls: 'never', constrain: false, stream: false, gateway: session };
    const run = await store.createRun({
      input,
      model: SESSION_MODEL,
      settings,
      dryRun: session.dryRun,
      metadata: { gateway: true },
      ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
      ...(options.userId === undefined ? {} : { userId: options.userId }),
    });
    const lease = await store.claimRun(run.id, { owner: options.owner, ttlMs: options.leaseMs });
    if (lease === undefined) throw new ToolgateError('internal', `could not take the lease of the new gateway session run ${run.id}`);
    const opened = new GatewayRun(options, run, lease);
    await opened.#log.append(
      [
        draft('run_started', { input, model: SESSION_MODEL, tools: [...options.toolNames], maxSteps: 0, strategy: 'gateway', dryRun: session.dryRun }),
        draft('run_status', { from: 'queued', to: 'running', reason: 'an MCP client connected' }),
      ],
      { status: 'running' },
    );
    await opened.#log.start();
    return opened;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** One tools/call of the client, through the gate. Never throws for the call's own trouble: the client gets the reason. */
  async call(request: GatewayCallRequest): Promise<GatewayCallResult> {
    if (this.#ended) throw new ToolgateError('conflict', `gateway session ${this.runId} has ended`);
    const step = ++this.#steps;
    const call: RawToolCall = { id: newId('call'), name: request.name, arguments: JSON.stringify(request.arguments) };
    const signal = request.signal === undefined ? this.#abort.signal : AbortSignal.any([this.#abort.signal, request.signal]);
    let sent = false;
    const ctx = this.#context(request, step, signal, () => (sent = true));
    const entry = request.catalog.visible.get(request.name);
    const refused = entry === undefined ? undefined : await request.refuse?.(entry);
    if (entry !== undefined && refused !== undefined) {
      const gate = draft('gate_decision', { step, toolCallId: call.id, name: call.name, effect: entry.policy.effect, decision: 'denied', normalisations: [], injected: [], reason: refused.message });
      const result = await recordResult(ctx, call, performance.now(), toolError(refused.code, refused.message), { before: [gate] });
      return this.#done(call, result);
    }
    const pass = startPassSpan(this.#traceRun(request.traceparent));
    let outcome: Awaited<ReturnType<typeof executeToolCall>>;
    try {
      outcome = await executeToolCall({ ...ctx, trace: pass }, call);
    } catch (error) {
      pass.end({ status: 'failed' });
      // The call went out, and then its result could not be recorded: the client must not take the error for "not done".
      if (sent && error instanceof ToolgateError && error.code === 'store_unavailable') {
        return this.#done(call, toolError('outcome_unknown', `${call.name} was sent, but its result could not be recorded (${error.message}). It MAY HAVE EXECUTED: check before calling it again.`));
      }
      throw error;
    }
    pass.end({ status: outcome.kind === 'done' && outcome.result.ok ? 'completed' : outcome.kind });
    if (outcome.kind === 'done') return this.#done(call, outcome.result);
    if (outcome.kind === 'unknown') {
      // The client is still waiting on this request: it gets the doubt at once, and the log records it.
      const message = `${call.name} was sent but no answer came (${outcome.detail}). It MAY HAVE EXECUTED: check before calling it again.`;
      return this.#done(call, await recordResult(ctx, call, performance.now(), toolError('outcome_unknown', message)));
    }
    return this.#hold(ctx, call, outcome.arguments, outcome.effect, outcome.reason);
  }

  /**
   * Records a decision on a held call (an elicitation's answer), exactly as
   * the runs API would. A call already decided elsewhere (or refused for lack
   * of a decision) keeps that outcome: this one is then dropped.
   */
  async decide(input: Extract<RunInput, { type: 'approval' }>): Promise<void> {
    try {
      await submitInput(this.#options.store, this.runId, input);
    } catch (error) {
      if (error instanceof ToolgateError && error.code === 'conflict') return;
      throw error;
    }
  }

  /** Refuses a held call without waiting for its decision (the client stopped waiting for it). */
  cancelHeld(toolCallId: string, reason: string): void {
    this.#held.get(toolCallId)?.abort.abort(reason);
  }

  /** Appends events of the session that are not calls (a tool that changed upstream). */
  async record(drafts: EventDraft[]): Promise<void> {
    if (this.#ended) return;
    await this.#log.append(drafts);
  }

  /** The outcome of a call this session held (still held, or settled not long ago). */
  heldOutcome(toolCallId: string): Promise<GatewayDone> | undefined {
    return this.#heldOutcomes.get(toolCallId);
  }

  /** Ends the session's run: calls still held are refused, then `completed` (or `cancelled`); the lease is released. */
  end(options: { status: 'completed' | 'cancelled'; reason: string }): Promise<void> {
    this.#ending ??= this.#finish(options);
    return this.#ending;
  }

  /** `onSent`: the call's tool_call is recorded, so the call is about to go (or went) upstream. */
  #context(request: GatewayCallRequest, step: number, signal: AbortSignal, onSent: () => void = () => undefined): ToolCallContext {
    const env = this.#options.environment;
    return {
      runId: this.runId,
      step,
      append: async (drafts) => {
        const events = await this.#log.append(drafts);
        if (drafts.some((d) => d.type === 'tool_call')) onSent();
        return events;
      },
      tools: env.tools,
      catalog: request.catalog,
      policy: env.policy,
      validator: env.validator,
      redact: this.#redact,
      dryRun: this.#options.session.dryRun,
      tenantId: this.#options.tenantId,
      userId: this.#options.userId,
      hooks: env.hooks,
      signal,
      toolTimeoutMs: env.toolTimeoutMs,
    };
  }

  #traceRun(traceparent: string | undefined): Run {
    const settings = { gateway: this.#options.session, ...(traceparent === undefined ? {} : { traceparent }) } as RunSettings;
    return {
      id: this.runId,
      status: 'running',
      input: '',
      model: SESSION_MODEL,
      createdAt: '',
      updatedAt: '',
      usage: ZERO_USAGE,
      steps: this.#steps,
      lastEventId: 0,
      settings,
      ...(this.#options.tenantId === undefined ? {} : { tenantId: this.#options.tenantId }),
    };
  }

  #done(call: RawToolCall, result: ToolResult): GatewayCallResult {
    if (result.ok) this.#counts.ok += 1;
    else if (result.error?.code === 'denied' || result.error?.code === 'rejected' || result.error?.code === 'invalid_arguments' || result.error?.code === 'rate_limited') this.#counts.refused += 1;
    else this.#counts.failed += 1;
    return { kind: 'done', toolCallId: call.id, result };
  }

  async #hold(ctx: ToolCallContext, call: RawToolCall, args: JsonObject, effect: 'read' | 'write', reason: 'policy' | 'untrusted_output'): Promise<GatewayCallResult> {
    const shown = this.#redact(args) as JsonObject;
    // One held call at a time: a run has one pending approval.
    const previous = this.#approvalSlot;
    let release!: () => void;
    this.#approvalSlot = new Promise<void>((resolve) => (release = resolve));
    await previous;
    if (this.#ended) {
      release();
      return this.#done(call, await recordResult(ctx, call, performance.now(), toolError('cancelled', `${call.name} was not run: the session ended before it could be decided`)));
    }
    const held: Held = { call, step: ctx.step, abort: new AbortController() };
    let eventId: number;
    try {
      eventId = await this.#recordHold(ctx.step, call, shown, effect, reason);
    } catch (error) {
      release();
      throw error;
    }
    this.#held.set(call.id, held);
    // The call outlives the request that made it (an elicitation round, a client that gave up waiting): only the session ends it.
    const outcome = this.#settle({ ...ctx, signal: this.#abort.signal }, held, eventId).finally(() => {
      this.#held.delete(call.id);
      release();
      setTimeout(() => this.#heldOutcomes.delete(call.id), HELD_OUTCOME_KEEP_MS).unref();
    });
    outcome.catch(() => undefined);
    this.#heldOutcomes.set(call.id, outcome);
    return { kind: 'held', toolCallId: call.id, name: call.name, arguments: shown, effect, reason, outcome };
  }

  /** approval_required and the move to waiting_approval, in one append; returns the approval_required event's id. */
  async #recordHold(step: number, call: RawToolCall, shown: JsonObject, effect: 'read' | 'write', reason: 'policy' | 'untrusted_output'): Promise<number> {
    const ask = draft('approval_required', { step, toolCallId: call.id, name: call.name, arguments: shown, effect, reason });
    const events = await this.#log.transition({
      to: 'waiting_approval',
      events: [ask],
      reason: `${call.name} needs approval`,
      patch: (eventId) => ({ steps: this.#steps, pendingApproval: { toolCallId: call.id, name: call.name, arguments: shown, effect, reason, eventId } }),
    });
    const recorded = events.find((e) => e.type === 'approval_required');
    return recorded?.id ?? 0;
  }

  /** Waits for the decision (or the timeout), then runs or refuses the call. */
  async #settle(ctx: ToolCallContext, held: Held, afterEventId: number): Promise<GatewayDone> {
    const { call } = held;
    const timeoutMs = this.#options.approvalTimeoutMs;
    const stop = AbortSignal.any([held.abort.signal, this.#abort.signal, AbortSignal.timeout(timeoutMs)]);
    let watched: WatchedDecision | 'timeout' | 'stopped';
    try {
      watched = await watchForDecision({ store: this.#options.store, runId: this.runId, toolCallId: call.id, afterEventId }, stop);
    } catch {
      watched = held.abort.signal.aborted || this.#abort.signal.aborted ? 'stopped' : 'timeout';
    }
    if (watched !== 'timeout' && watched !== 'stopped' && watched.kind === 'decided') {
      return this.#resume(ctx, call, watched.decision);
    }
    const why =
      watched === 'timeout'
        ? `no decision came within ${timeoutMs >= 10_000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}; the call was refused`
        : watched === 'stopped'
          ? (held.abort.signal.reason as string | undefined) ?? 'the session ended before a decision came'
          : watched.kind === 'cancel_requested'
            ? `the session was cancelled (${watched.reason})`
            : 'the session ended before a decision came';
    return this.#refuseHeld(ctx, call, watched === 'timeout' ? 'rejected' : 'cancelled', why);
  }

  async #resume(ctx: ToolCallContext, call: RawToolCall, decision: ApprovalDecision): Promise<GatewayDone> {
    const outcome = await executeToolCall(ctx, call, decision);
    if (outcome.kind === 'done') {
      this.#done(call, outcome.result);
      return { toolCallId: call.id, result: outcome.result };
    }
    const detail = outcome.kind === 'unknown' ? outcome.detail : 'it needed approval again';
    const message = `${call.name} was approved and sent, but no answer came (${detail}). It MAY HAVE EXECUTED: check before calling it again.`;
    return { toolCallId: call.id, result: await recordResult(ctx, call, performance.now(), toolError('outcome_unknown', message)) };
  }

  /** A held call ends without running: its tool_result, and the run back to running (unless it has ended). */
  async #refuseHeld(ctx: ToolCallContext, call: RawToolCall, code: 'rejected' | 'cancelled', why: string): Promise<GatewayDone> {
    const result = toolError(code, `${call.name} was not run: ${why}`);
    const data = { step: ctx.step, toolCallId: call.id, name: call.name, ok: false, content: result.content, error: result.error ?? { code, message: why }, latencyMs: 0 };
    await this.#log.transition({ to: 'running', events: [draft('tool_result', data)], reason: why, patch: () => ({ steps: this.#steps, pendingApproval: null }), onlyIfPending: call.id }).catch((error: unknown) => {
      if (!(error instanceof ToolgateError && (error.code === 'conflict' || error.code === 'lease_lost'))) throw error;
    });
    this.#counts.refused += 1;
    return { toolCallId: call.id, result };
  }

  async #finish({ status, reason }: { status: 'completed' | 'cancelled'; reason: string }): Promise<void> {
    this.#ended = true;
    for (const held of this.#held.values()) held.abort.abort(status === 'cancelled' ? `the session was cancelled (${reason})` : `the session ended (${reason}) before a decision came`);
    // Calls still in flight are aborted on a cancel; on a normal end they finish first.
    if (status === 'cancelled') this.#abort.abort(new Error(reason));
    await this.#approvalSlot;
    await this.#log.settled();
    try {
      const run = await this.#options.store.getRun(this.runId);
      if (run !== undefined && !TERMINAL_RUN_STATUSES.has(run.status)) {
        const { ok, failed, refused } = this.#counts;
        const summary = `${this.#steps} tool call${this.#steps === 1 ? '' : 's'}: ${ok} ok, ${failed} failed, ${refused} refused`;
        const last =
          status === 'completed'
            ? draft('run_completed', { output: `gateway session ended (${reason}); ${summary}`, usage: ZERO_USAGE, steps: this.#steps })
            : draft('run_cancelled', { reason, usage: ZERO_USAGE, steps: this.#steps });
        await this.#log.append([draft('run_status', { from: run.status, to: status, reason }), last], {
          status,
          steps: this.#steps,
          pendingApproval: null,
          ...(status === 'completed' ? { output: `gateway session ended (${reason}); ${summary}` } : {}),
        });
      }
    } catch (error) {
      if (!(error instanceof ToolgateError && (error.code === 'lease_lost' || error.code === 'conflict'))) throw error;
    } finally {
      await this.#log.close();
    }
  }

  #lost(): void {
    // Another process took the run over (this one stalled past its lease): write nothing more.
    this.#ended = true;
    this.#abort.abort(new Error('the gateway lost its lease on the session run'));
    for (const held of this.#held.values()) held.abort.abort('the gateway lost the session run');
  }
}
