import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  toolError,
  type EventDraft,
  type ParsedToolCall,
  type RunEvent,
  type RunStatus,
  type RunStore,
  type ToolResult,
} from '../core/index.ts';
import { watchForDecision, type WatchedDecision } from '../orchestrator/log/approval-watch.ts';
import { recordResult } from '../orchestrator/call/call-events.ts';
import { executeToolCall, type ToolCallContext } from '../orchestrator/call/execute-tool-call.ts';
import type { RunWriter } from '../orchestrator/log/run-writer.ts';
import type { ApprovalDecision } from '../orchestrator/state/run-state.ts';
import type { AppendPatch } from '../orchestrator/log/transition.ts';
import type { GatewayCallResult, GatewayDone, GatewayHeld } from './gateway-call.ts';

/** How long the outcome of a held call is kept for a client that comes back for it. */
const HELD_OUTCOME_KEEP_MS = 10 * 60_000;
/** Status changes tried again against a run that changed meanwhile (the runs API decided at the same moment). */
const TRANSITION_ATTEMPTS = 3;

export interface HeldCallsOptions {
  store: RunStore;
  runId: string;
  writer: Pick<RunWriter, 'append'>;
  /** A held call with no decision after this long is refused. */
  approvalTimeoutMs: number;
  /** Aborted when the session ends or is lost: no call waits on. */
  session: AbortSignal;
  /** The session's calls so far: recorded with every status change. */
  steps: () => number;
  ended: () => boolean;
  /** A held call ended: `refused`, or the result it ran to (for the session's summary). */
  tally: (outcome: ToolResult | 'refused') => void;
}

interface Held {
  call: ParsedToolCall;
  step: number;
  abort: AbortController;
}

/** What the gate said of a call that needs a person. */
export type PendingCall = Pick<GatewayHeld, 'arguments' | 'effect' | 'reason'>;

/**
 * The calls of one gateway session that wait for a person. At most one waits
 * at a time (a run has one pending approval); the others queue behind it.
 * Each is recorded as approval_required with the run waiting, then run or
 * refused once a decision (here, by the client, or over the runs API), the
 * timeout, or the session's end comes.
 */
export class HeldCalls {
  readonly #options: HeldCallsOptions;
  readonly #held = new Map<string, Held>();
  /** Outcomes of calls that were held, for a client that comes back for them (an elicitation answer). */
  readonly #outcomes = new Map<string, Promise<GatewayDone>>();
  #slot: Promise<void> = Promise.resolve();

  constructor(options: HeldCallsOptions) {
    this.#options = options;
  }

  /** Holds `call` for a person; the result's outcome settles once it is decided and done, or refused. */
  async hold(ctx: ToolCallContext, call: ParsedToolCall, pending: PendingCall): Promise<GatewayCallResult> {
    const shown: GatewayHeld = { toolCallId: call.id, name: call.name, ...pending };
    // One held call at a time: a run has one pending approval.
    const previous = this.#slot;
    const slot = Promise.withResolvers<void>();
    this.#slot = slot.promise;
    await previous;
    if (this.#options.ended()) {
      slot.resolve();
      const result = await recordResult(ctx, call, {
        result: toolError('cancelled', `${call.name} was not run: the session ended before it could be decided`),
      });
      this.#options.tally(result);
      return { kind: 'done', toolCallId: call.id, result };
    }
    const held: Held = { call, step: ctx.step, abort: new AbortController() };
    let eventId: number;
    try {
      eventId = await this.#recordHold(ctx.step, shown);
    } catch (error) {
      slot.resolve();
      throw error;
    }
    this.#held.set(call.id, held);
    // The call outlives the request that made it (an elicitation round, a client that gave up waiting): only the
    // session ends it.
    const outcome = this.#settle({ ...ctx, signal: this.#options.session }, held, eventId).finally(() => {
      this.#held.delete(call.id);
      slot.resolve();
      setTimeout(() => this.#outcomes.delete(call.id), HELD_OUTCOME_KEEP_MS).unref();
    });
    outcome.catch(() => undefined);
    this.#outcomes.set(call.id, outcome);
    return { kind: 'held', ...shown, outcome };
  }

  /** Refuses a held call without waiting for its decision. */
  cancel(toolCallId: string, reason: string): void {
    this.#held.get(toolCallId)?.abort.abort(reason);
  }

  /** Refuses every held call. */
  cancelAll(reason: string): void {
    for (const held of this.#held.values()) held.abort.abort(reason);
  }

  /** The outcome of a call held here (still held, or settled not long ago). */
  outcome(toolCallId: string): Promise<GatewayDone> | undefined {
    return this.#outcomes.get(toolCallId);
  }

  /** Settles once no call is held or queued to be. */
  settled(): Promise<void> {
    return this.#slot;
  }

  /**
   * approval_required and the move to waiting_approval, in one append; the approval_required event's id, as the append
   * returned it.
   */
  async #recordHold(step: number, shown: GatewayHeld): Promise<number> {
    const ask = draft('approval_required', {
      step,
      toolCallId: shown.toolCallId,
      name: shown.name,
      arguments: shown.arguments,
      effect: shown.effect,
      reason: shown.reason,
    });
    const events = await this.#transition({
      to: 'waiting_approval',
      events: [ask],
      reason: `${shown.name} needs approval`,
      patch: () => ({ steps: this.#options.steps(), pendingApproval: { ...shown } }),
    });
    return events.find((e) => e.type === 'approval_required')?.id ?? 0;
  }

  /** Waits for the decision (or the timeout), then runs or refuses the call. */
  async #settle(ctx: ToolCallContext, held: Held, afterEventId: number): Promise<GatewayDone> {
    const { call } = held;
    const { store, runId, approvalTimeoutMs: timeoutMs, session } = this.#options;
    const stop = AbortSignal.any([held.abort.signal, session, AbortSignal.timeout(timeoutMs)]);
    let watched: WatchedDecision | 'timeout' | 'stopped';
    try {
      watched = await watchForDecision({ store, runId, toolCallId: call.id, afterEventId }, stop);
    } catch {
      watched = held.abort.signal.aborted || session.aborted ? 'stopped' : 'timeout';
    }
    if (watched !== 'timeout' && watched !== 'stopped' && watched.kind === 'decided')
      return this.#resume(ctx, call, watched.decision);
    const why =
      watched === 'timeout'
        ? `no decision came within ` +
          `${timeoutMs >= 10_000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}; the call was refused`
        : whyStopped(watched, held);
    return this.#refuse(ctx, call, { code: watched === 'timeout' ? 'rejected' : 'cancelled', why });
  }

  async #resume(ctx: ToolCallContext, call: ParsedToolCall, decision: ApprovalDecision): Promise<GatewayDone> {
    const outcome = await executeToolCall(ctx, call, decision);
    if (outcome.kind === 'done') {
      this.#options.tally(outcome.result);
      return { toolCallId: call.id, result: outcome.result };
    }
    const detail = outcome.kind === 'unknown' ? outcome.detail : 'it needed approval again';
    const message =
      `${call.name} was approved and sent, but no answer came ` +
      `(${detail}). It MAY HAVE EXECUTED: check before calling it again.`;
    return {
      toolCallId: call.id,
      result: await recordResult(ctx, call, { result: toolError('outcome_unknown', message) }),
    };
  }

  /** A held call ends without running: its tool_result, and the run back to running (unless it has ended). */
  async #refuse(
    ctx: ToolCallContext,
    call: ParsedToolCall,
    { code, why }: { code: 'rejected' | 'cancelled'; why: string },
  ): Promise<GatewayDone> {
    const result = toolError(code, `${call.name} was not run: ${why}`);
    const data = {
      step: ctx.step,
      toolCallId: call.id,
      name: call.name,
      ok: false,
      content: result.content,
      error: result.error ?? { code, message: why },
      latencyMs: 0,
    };
    const patch = (): AppendPatch => ({ steps: this.#options.steps(), pendingApproval: null });
    await this.#transition({
      to: 'running',
      events: [draft('tool_result', data)],
      reason: why,
      patch,
      onlyIfPending: call.id,
    }).catch((error: unknown) => {
      if (!(error instanceof ToolgateError && (error.code === 'conflict' || error.code === 'lease_lost'))) throw error;
    });
    this.#options.tally('refused');
    return { toolCallId: call.id, result };
  }

  /**
   * A status change with its events, in one append made only if the run did
   * not change meanwhile (the runs API may decide at the same moment). With
   * `onlyIfPending`, the status is left alone once that call is no longer
   * pending (decided or cleared elsewhere): only the events are appended.
   */
  async #transition(change: {
    to: RunStatus;
    events: EventDraft[];
    reason: string;
    patch: () => AppendPatch;
    onlyIfPending?: string;
  }): Promise<RunEvent[]> {
    const { store, runId, writer } = this.#options;
    for (let attempt = 1; ; attempt++) {
      const run = await store.getRun(runId);
      if (run === undefined || TERMINAL_RUN_STATUSES.has(run.status))
        throw new ToolgateError('conflict', `gateway session ${runId} has ended`);
      if (change.onlyIfPending !== undefined && run.pendingApproval?.toolCallId !== change.onlyIfPending)
        return writer.append(change.events);
      const status =
        run.status === change.to
          ? []
          : [draft('run_status', { from: run.status, to: change.to, reason: change.reason })];
      try {
        return await writer.append(
          [...status, ...change.events],
          { status: change.to, ...change.patch() },
          { expectLastEventId: run.lastEventId },
        );
      } catch (error) {
        if (!(error instanceof ToolgateError && error.code === 'conflict') || attempt >= TRANSITION_ATTEMPTS)
          throw error;
      }
    }
  }
}

/** Why a held call was refused when its wait ended without a decision. */
function whyStopped(watched: Exclude<WatchedDecision, { kind: 'decided' }> | 'stopped', held: Held): string {
  if (watched === 'stopped') {
    const reason: unknown = held.abort.signal.reason;
    return typeof reason === 'string' ? reason : 'the session ended before a decision came';
  }
  return watched.kind === 'cancel_requested'
    ? `the session was cancelled (${watched.reason})`
    : 'the session ended before a decision came';
}
