import { ToolgateError, describeError, draft, type JsonObject, type RunStore } from '../../core/index.ts';
import { jsonPayload, type NotifySubject } from './approval-payload.ts';
import { deliverWebhook, type DeliveryResult } from './deliver-webhook.ts';
import { nameOnlyRef, targetMatches, type ToolRefOf } from './match-target.ts';
import { slackPayload } from './slack-payload.ts';
import { deliveryId, type CurrentRound } from './timeout-plan.ts';
import type { NotifyLinks, NotifyTarget, WaitingCall } from './waiting-call.ts';

/** Issues the decision links of one notification (decision-links.ts's DecisionLinks has this shape). */
export interface LinkIssuer {
  issue(request: {
    runId: string;
    toolCallId: string;
    arguments: JsonObject;
    target: string;
  }): Promise<NotifyLinks & { linkIds: string[] }>;
}

export type NotifyLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface ApprovalNotifierOptions {
  /** Where approval_notified is appended (without a lease, like client input). */
  store: Pick<RunStore, 'append'>;
  links?: LinkIssuer;
  /** The base of console URLs (no trailing slash). */
  baseUrl: () => string;
  toolRef?: ToolRefOf;
  log: NotifyLog;
  /** The wait before a second attempt (default 1 s; tests make it small). */
  retryBaseMs?: number;
}

/**
 * Sends the notifications of a waiting call to the targets that match it and records each delivery's outcome as
 * approval_notified. Nothing here can fail a run: every error ends as a failed delivery or a log line.
 */
export class ApprovalNotifier {
  readonly #options: ApprovalNotifierOptions;
  readonly #stop = new AbortController();
  /** Deliveries under way in this process, by deliveryId: a sweep never starts one twice. */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(options: ApprovalNotifierOptions) {
    this.#options = options;
  }

  /** The targets among `targets` that want to hear of `call`. */
  matching(targets: readonly NotifyTarget[], call: WaitingCall): NotifyTarget[] {
    return targets.filter((target) => targetMatches(target, call, this.#options.toolRef ?? nameOnlyRef));
  }

  /** Whether the delivery is under way in this process. */
  inFlight(id: string): boolean {
    return this.#inFlight.has(id);
  }

  /** Notifies each target (matching ones only) of `call` for `round`; resolves when every delivery was recorded. */
  async notify(call: WaitingCall, round: Pick<CurrentRound, 'round' | 'sequence' | 'targets'>): Promise<void> {
    const deliveries = this.matching(round.targets, call).map((target) => {
      const id = deliveryId({
        runId: call.runId,
        toolCallId: call.toolCallId,
        target: target.name,
        ...roundKey(round),
      });
      const running = this.#inFlight.get(id);
      if (running !== undefined) return running;
      const delivery = this.#deliver({ call, target, round, id }).finally(() => this.#inFlight.delete(id));
      this.#inFlight.set(id, delivery);
      return delivery;
    });
    await Promise.all(deliveries);
  }

  /** Stops retrying (a delivery under way is recorded as failed) and waits for the deliveries to be recorded. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#inFlight.values());
  }

  async #deliver(options: {
    call: WaitingCall;
    target: NotifyTarget;
    round: Pick<CurrentRound, 'round' | 'sequence'>;
    id: string;
  }): Promise<void> {
    const { call, target, round, id } = options;
    let linkIds: string[] = [];
    let result: DeliveryResult;
    try {
      const issued = await this.#options.links?.issue({
        runId: call.runId,
        toolCallId: call.toolCallId,
        arguments: call.arguments,
        target: target.name,
      });
      linkIds = issued?.linkIds ?? [];
      const subject: NotifySubject = {
        call,
        round: round.round,
        consoleUrl: `${this.#options.baseUrl()}/#/runs/${encodeURIComponent(call.runId)}`,
        ...(issued === undefined
          ? {}
          : {
              links: { approve: issued.approve, reject: issued.reject, open: issued.open, expiresAt: issued.expiresAt },
            }),
      };
      const body = JSON.stringify(target.format === 'slack' ? slackPayload(subject) : jsonPayload(subject));
      result = await deliverWebhook({
        url: target.url,
        secret: target.secret,
        id,
        body,
        signal: this.#stop.signal,
        ...(target.headers === undefined ? {} : { headers: target.headers }),
        ...(target.timeoutMs === undefined ? {} : { timeoutMs: target.timeoutMs }),
        ...(target.maxAttempts === undefined ? {} : { maxAttempts: target.maxAttempts }),
        ...(this.#options.retryBaseMs === undefined ? {} : { retryBaseMs: this.#options.retryBaseMs }),
      });
    } catch (error) {
      result = { outcome: 'failed', attempts: 0, failures: [{ attempt: 0, error: describeError(error) }] };
    }
    await this.#record({ call, target: target.name, round: round.round, id, result, linkIds });
  }

  async #record(options: {
    call: WaitingCall;
    target: string;
    round: CurrentRound['round'];
    id: string;
    result: DeliveryResult;
    linkIds: string[];
  }): Promise<void> {
    const { call, target, result } = options;
    const fields = { runId: call.runId, toolCallId: call.toolCallId, target, deliveryId: options.id };
    if (result.outcome === 'failed')
      this.#options.log('warn', `approval notification to ${target} failed after ${result.attempts} attempt(s)`, {
        ...fields,
        failures: result.failures,
      });
    try {
      await this.#options.store.append(call.runId, [
        draft('approval_notified', {
          toolCallId: call.toolCallId,
          target,
          round: options.round,
          outcome: result.outcome,
          attempts: result.attempts,
          ...(result.failures.length === 0 ? {} : { failures: result.failures }),
          deliveryId: options.id,
          ...(options.linkIds.length === 0 ? {} : { linkIds: options.linkIds }),
        }),
      ]);
    } catch (error) {
      // The run ended while the notification was on its way: nothing may follow its end, and nothing needs to.
      if (error instanceof ToolgateError && error.code === 'conflict')
        this.#options.log('info', 'approval notification not recorded: the run has ended', fields);
      else this.#options.log('error', `approval notification not recorded: ${describeError(error)}`, fields);
    }
  }
}

function roundKey(round: Pick<CurrentRound, 'round' | 'sequence'>): Pick<CurrentRound, 'round' | 'sequence'> {
  return { round: round.round, ...(round.sequence === undefined ? {} : { sequence: round.sequence }) };
}
