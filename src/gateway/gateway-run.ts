import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  ZERO_USAGE,
  draft,
  newId,
  toolError,
  type EventDraft,
  type JsonValue,
  type ParsedToolCall,
  type Run,
  type RunInput,
  type RunLease,
  type ToolResult,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { recordResult } from '../orchestrator/call/call-events.ts';
import { executeToolCall, type ToolCallContext } from '../orchestrator/call/execute-tool-call.ts';
import { RunWriter } from '../orchestrator/log/run-writer.ts';
import { submitInput } from '../orchestrator/submit-input.ts';
import { startPassSpan, type TracedRun } from '../orchestrator/call/tracing.ts';
import type { GatewayCallRequest, GatewayCallResult, GatewayDone } from './gateway-call.ts';
import { HeldCalls } from './held-calls.ts';
import { SESSION_MODEL, openSessionRun, type GatewayRunOptions } from './session-run.ts';

/** Error codes of calls the gate (or a limit) refused, as the session's summary counts them. */
const REFUSED_CODES: ReadonlySet<string> = new Set(['denied', 'rejected', 'invalid_arguments', 'rate_limited']);

/**
 * One gateway session's run: the MCP client's calls, each through
 * executeToolCall (the one path to a tool), recorded in the run's log through
 * the run writer every run owner writes with. The gateway process holds the
 * run's lease for the session's life (the writer keeps it), so no other
 * process drives it; input reaches it through the log (approvals over the
 * runs API, a cancel). At most one call waits for a person at a time (HeldCalls).
 */
export class GatewayRun {
  readonly runId: string;
  readonly #options: GatewayRunOptions;
  readonly #writer: RunWriter;
  readonly #held: HeldCalls;
  readonly #redact: (value: JsonValue) => JsonValue;
  readonly #abort = new AbortController();
  #steps = 0;
  #ended = false;
  #ending: Promise<void> | undefined;
  #counts = { ok: 0, failed: 0, refused: 0 };

  private constructor({ options, run, lease }: { options: GatewayRunOptions; run: Run; lease: RunLease }) {
    this.runId = run.id;
    this.#options = options;
    this.#redact = createRedactor(options.environment.redact);
    this.#writer = new RunWriter({
      store: options.store,
      lease,
      leaseMs: options.leaseMs,
      lastEventId: run.lastEventId,
      // The client waits on its call: a store that cannot record it is said at once (the call may then not run, or may
      // have run).
      waitForStore: false,
      onApplied: (events) => {
        for (const event of events)
          if (event.type === 'cancel_requested')
            void this.end({ status: 'cancelled', reason: event.data.reason }).catch(() => undefined);
      },
      onCommitted: options.onEvents,
      onLost: () => this.#lost(),
    });
    this.#held = new HeldCalls({
      store: options.store,
      runId: run.id,
      writer: this.#writer,
      approvalTimeoutMs: options.approvalTimeoutMs,
      session: this.#abort.signal,
      steps: () => this.#steps,
      ended: () => this.#ended,
      tally: (outcome) => this.#tally(outcome),
    });
  }

  /** Creates the session's run, takes its lease and records its start. */
  static async open(options: GatewayRunOptions): Promise<GatewayRun> {
    const { run, lease, start } = await openSessionRun(options);
    const opened = new GatewayRun({ options, run, lease });
    // The run was just created: its log is empty, nothing to read first.
    await opened.#writer.start({ catchUp: false });
    await opened.#writer.append(start, { status: 'running' });
    return opened;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /**
   * One tools/call of the client, through the gate. Never throws for the call's own trouble: the client gets the
   * reason.
   */
  async call(request: GatewayCallRequest): Promise<GatewayCallResult> {
    if (this.#ended) throw new ToolgateError('conflict', `gateway session ${this.runId} has ended`);
    const step = ++this.#steps;
    // The client's arguments arrive parsed (JSON-RPC): they go to the gate as they are.
    const call: ParsedToolCall = { id: newId('call'), name: request.name, input: request.arguments };
    const signal =
      request.signal === undefined ? this.#abort.signal : AbortSignal.any([this.#abort.signal, request.signal]);
    let sent = false;
    const ctx = this.#context({ request, step, signal, onSent: () => (sent = true) });
    const entry = request.catalog.visible.get(request.name);
    const refused = entry === undefined ? undefined : await request.refuse?.(entry);
    if (entry !== undefined && refused !== undefined) {
      const gate = draft('gate_decision', {
        step,
        toolCallId: call.id,
        name: call.name,
        effect: entry.policy.effect,
        decision: 'denied',
        normalisations: [],
        injected: [],
        reason: refused.message,
      });
      return this.#done(
        call,
        await recordResult(ctx, call, { result: toolError(refused.code, refused.message), before: [gate] }),
      );
    }
    const pass = startPassSpan(this.#traced(request.traceparent));
    let outcome: Awaited<ReturnType<typeof executeToolCall>>;
    try {
      outcome = await executeToolCall({ ...ctx, trace: pass }, call);
    } catch (error) {
      pass.end({ status: 'failed' });
      // The call went out, and then its result could not be recorded: the client must not take the error for "not
      // done".
      if (sent && error instanceof ToolgateError && error.code === 'store_unavailable') {
        return this.#done(
          call,
          toolError(
            'outcome_unknown',
            `${call.name} was sent, but its result could not be recorded ` +
              `(${error.message}). It MAY HAVE EXECUTED: check before calling it again.`,
          ),
        );
      }
      throw error;
    }
    pass.end({ status: outcome.kind === 'done' && outcome.result.ok ? 'completed' : outcome.kind });
    if (outcome.kind === 'done') return this.#done(call, outcome.result);
    if (outcome.kind === 'client') {
      // A gateway session has no client tools (its MCP client calls toolgate's); a call can only come out this way
      // through a bug, and is refused rather than reported as done.
      const refused = toolError('tool_not_found', `${call.name} is not a tool of this gateway`);
      return this.#done(call, await recordResult(ctx, call, { result: refused }));
    }
    if (outcome.kind === 'unknown') {
      // The client is still waiting on this request: it gets the doubt at once, and the log records it.
      const message =
        `${call.name} was sent but no answer came (${outcome.detail}). ` +
        `It MAY HAVE EXECUTED: check before calling it again.`;
      return this.#done(call, await recordResult(ctx, call, { result: toolError('outcome_unknown', message) }));
    }
    return this.#held.hold(ctx, call, { arguments: outcome.arguments, effect: outcome.effect, reason: outcome.reason });
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
    this.#held.cancel(toolCallId, reason);
  }

  /** Appends events of the session that are not calls (a tool that changed upstream). */
  async record(drafts: EventDraft[]): Promise<void> {
    if (this.#ended) return;
    await this.#writer.append(drafts);
  }

  /** The outcome of a call this session held (still held, or settled not long ago). */
  heldOutcome(toolCallId: string): Promise<GatewayDone> | undefined {
    return this.#held.outcome(toolCallId);
  }

  /** Ends the session's run: calls still held are refused, then `completed` (or `cancelled`); the lease is released. */
  end(options: { status: 'completed' | 'cancelled'; reason: string }): Promise<void> {
    this.#ending ??= this.#finish(options);
    return this.#ending;
  }

  /** `onSent`: the call's tool_call is recorded, so the call is about to go (or went) upstream. */
  #context({
    request,
    step,
    signal,
    onSent,
  }: {
    request: GatewayCallRequest;
    step: number;
    signal: AbortSignal;
    onSent: () => void;
  }): ToolCallContext {
    const env = this.#options.environment;
    return {
      runId: this.runId,
      step,
      append: async (drafts, patch, options) => {
        const events = await this.#writer.append(drafts, patch, options);
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
      roles: this.#options.roles,
      hooks: env.hooks,
      signal,
      onProgress: request.onProgress,
      toolTimeoutMs: env.toolTimeoutMs,
    };
  }

  /** The run as a call's span names it: the session's run, continuing the client's trace. */
  #traced(traceparent: string | undefined): TracedRun {
    return {
      id: this.runId,
      model: SESSION_MODEL,
      settings: traceparent === undefined ? {} : { traceparent },
      ...(this.#options.tenantId === undefined ? {} : { tenantId: this.#options.tenantId }),
    };
  }

  #done(call: ParsedToolCall, result: ToolResult): GatewayCallResult {
    this.#tally(result);
    return { kind: 'done', toolCallId: call.id, result };
  }

  #tally(outcome: ToolResult | 'refused'): void {
    if (outcome === 'refused' || (!outcome.ok && REFUSED_CODES.has(outcome.error?.code ?? '')))
      this.#counts.refused += 1;
    else if (outcome.ok) this.#counts.ok += 1;
    else this.#counts.failed += 1;
  }

  async #finish({ status, reason }: { status: 'completed' | 'cancelled'; reason: string }): Promise<void> {
    this.#ended = true;
    this.#held.cancelAll(
      status === 'cancelled'
        ? `the session was cancelled (${reason})`
        : `the session ended (${reason}) before a decision came`,
    );
    // Calls still in flight are aborted on a cancel; on a normal end they finish first.
    if (status === 'cancelled') this.#abort.abort(new Error(reason));
    await this.#held.settled();
    await this.#writer.settled();
    try {
      const run = await this.#options.store.getRun(this.runId);
      if (run !== undefined && !TERMINAL_RUN_STATUSES.has(run.status))
        await this.#appendEnd({ from: run.status, status, reason });
    } catch (error) {
      if (!(error instanceof ToolgateError && (error.code === 'lease_lost' || error.code === 'conflict'))) throw error;
    } finally {
      await this.#writer.release().catch(() => undefined);
    }
  }

  /** The session's last events: its status change and run_completed (with a summary of its calls) or run_cancelled. */
  async #appendEnd({
    from,
    status,
    reason,
  }: {
    from: Run['status'];
    status: 'completed' | 'cancelled';
    reason: string;
  }): Promise<void> {
    const { ok, failed, refused } = this.#counts;
    const steps = this.#steps;
    const output =
      `gateway session ended (${reason}); ${steps} tool ` +
      `call${steps === 1 ? '' : 's'}: ${ok} ok, ${failed} failed, ${refused} refused`;
    const last =
      status === 'completed'
        ? draft('run_completed', { output, usage: ZERO_USAGE, steps })
        : draft('run_cancelled', { reason, usage: ZERO_USAGE, steps });
    await this.#writer.append([draft('run_status', { from, to: status, reason }), last], {
      status,
      steps,
      pendingApproval: null,
      ...(status === 'completed' ? { output } : {}),
    });
  }

  #lost(): void {
    // Another process took the run over (this one stalled past its lease): write nothing more.
    this.#ended = true;
    this.#abort.abort(new Error('the gateway lost its lease on the session run'));
    this.#held.cancelAll('the gateway lost the session run');
  }
}
