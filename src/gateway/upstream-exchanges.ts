import type { CallToolResult, InputRequests, InputRequiredResult } from '@modelcontextprotocol/server';
import { ToolgateError, draft, newId, type EventDraft, type JsonObject, type UpstreamRequest } from '../core/index.ts';
import { askedOf, readAnswer, samplingApproval } from './exchange-questions.ts';
import { upstreamSummary, type SamplingDecision } from './upstream-requests.ts';

/** Prefix of an exchange's id, as it travels in a signed requestState (approval states carry a tool call id). */
export const EXCHANGE_PREFIX = 'upx_';
/** Calls of one session that may wait for the client to come back with an answer at once. */
export const DEFAULT_MAX_PENDING_EXCHANGES = 16;
/** Questions of one call queued behind the one put to the client. */
const MAX_QUEUED = 4;

type Outcome = CallToolResult | InputRequiredResult;
type Settled = { ok: true; value: Outcome } | { ok: false; error: unknown };

interface Question {
  request: UpstreamRequest;
  /** A sampling request under `approve`: the user is asked first (an elicitation), the model after. */
  approving: boolean;
  resolve: (answer: JsonObject) => void;
  reject: (error: Error) => void;
}

/** One call of a 2026-07-28 client that its upstream server may ask something during. */
export interface Exchange {
  readonly id: string;
  /** The upstream server the call went to: its questions are this call's. */
  readonly server: string | undefined;
  readonly controller: AbortController;
  readonly settled: Promise<Settled>;
  queue: Question[];
  /** The question put to the client in the last input_required result. */
  current: Question | undefined;
  wake: (() => void) | undefined;
  /** Runs while the client is away with a question; when it fires the questions are answered with an error. */
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** What came of a step: the call's result, or questions for the client (an input_required round). */
export type ExchangeStep = { kind: 'done'; value: Outcome } | { kind: 'ask'; inputRequests: InputRequests };

export interface UpstreamExchangesOptions {
  /** `gateway.sampling` for one server. */
  sampling: (server: string) => SamplingDecision;
  /** `gateway.roots`. */
  roots: readonly string[] | undefined;
  /** The session's client declared form elicitation: a sampling request under `approve` can be put to its user. */
  canElicit: boolean;
  /** How long the client may take to come back with an answer (`gateway.approvalTimeoutMs`). */
  timeoutMs: number;
  maxPending?: number | undefined;
  record: (drafts: EventDraft[]) => void;
}

/**
 * The upstream requests of a 2026-07-28 client's session. Such a client cannot be sent a request: a question of the
 * upstream server during a call is put to it as an `input_required` result while the upstream request (and the call)
 * stays pending in this process; the client's retry carries the answer, which goes upstream, and the call goes on.
 */
export class UpstreamExchanges {
  readonly #options: UpstreamExchangesOptions;
  readonly #calls = new Map<string, Exchange>();

  constructor(options: UpstreamExchangesOptions) {
    this.#options = options;
  }

  /** Starts a call; `work` gets a signal of its own, since the client's request ends with each round. */
  start(server: string | undefined, work: (signal: AbortSignal) => Promise<Outcome>): Exchange {
    const controller = new AbortController();
    const settled = work(controller.signal).then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
    const exchange: Exchange = {
      id: newId(EXCHANGE_PREFIX.slice(0, -1)),
      server,
      controller,
      settled,
      queue: [],
      current: undefined,
      wake: undefined,
      timer: undefined,
    };
    this.#calls.set(exchange.id, exchange);
    void settled.then(() => {
      if (exchange.current === undefined && exchange.queue.length === 0) this.#forget(exchange);
    });
    return exchange;
  }

  get(id: string): Exchange | undefined {
    return this.#calls.get(id);
  }

  /**
   * Waits for the call's result or the upstream's next question. While it waits the client's request is open:
   * if the client gives it up, the call is cancelled (as it is for a client with a connection).
   */
  async step(exchange: Exchange, signal: AbortSignal): Promise<ExchangeStep> {
    clearTimeout(exchange.timer);
    const cancel = (): void => exchange.controller.abort(new Error('the client cancelled the request'));
    signal.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        exchange.current ??= exchange.queue.shift();
        const question = exchange.current;
        if (question !== undefined) {
          exchange.timer = setTimeout(() => this.#expire(exchange), this.#options.timeoutMs);
          exchange.timer.unref();
          return { kind: 'ask', inputRequests: askedOf(question.request, question.approving) };
        }
        const woke = new Promise<undefined>((resolve) => (exchange.wake = () => resolve(undefined)));
        const settled = await Promise.race([exchange.settled, woke]);
        exchange.wake = undefined;
        if (settled !== undefined) {
          this.#forget(exchange);
          if (settled.ok) return { kind: 'done', value: settled.value };
          throw settled.error;
        }
      }
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** The client's retry: its answers (`inputResponses`) go to the question it was asked. */
  answer(exchange: Exchange, responses: unknown): void {
    const question = exchange.current;
    if (question === undefined) return;
    const { request } = question;
    const read = readAnswer(question.request, { responses, approving: question.approving, roots: this.#options.roots });
    if (read.kind === 'approved') {
      // The same question again, now to the model.
      question.approving = false;
      return;
    }
    exchange.current = undefined;
    if (read.kind === 'answer') {
      this.#record(request, 'forwarded', read.reason);
      question.resolve(read.answer);
    } else if (read.kind === 'refused') {
      this.#record(request, 'denied', read.reason);
      question.reject(new ToolgateError('denied', read.reason));
    } else {
      this.#record(request, 'failed', read.reason);
      question.reject(new Error(read.reason));
    }
  }

  /** An upstream server's request, from the session's own connection to it. */
  ask(request: UpstreamRequest): Promise<JsonObject> {
    const refused = this.#refusal(request);
    if (refused !== undefined) {
      this.#record(request, refused.outcome, refused.reason);
      return Promise.reject(refused.outcome === 'denied' ? new ToolgateError('denied', refused.reason) : refused.error);
    }
    const exchange = this.#carrier(request.server);
    if (exchange === undefined || exchange.queue.length >= MAX_QUEUED) {
      const reason =
        exchange === undefined
          ? `no call of the client to "${request.server}" is in progress to carry the question ` +
            '(a 2026-07-28 client is asked only within its own tools/call)'
          : `the call already has ${MAX_QUEUED} questions waiting for the client`;
      this.#record(request, 'failed', reason);
      return Promise.reject(new Error(reason));
    }
    return new Promise<JsonObject>((resolve, reject) => {
      const question: Question = {
        request,
        approving: request.method === 'sampling/createMessage' && this.#options.sampling(request.server) === 'approve',
        resolve,
        reject,
      };
      request.signal.addEventListener(
        'abort',
        () => {
          if (!this.#drop(exchange, question)) return;
          this.#record(request, 'cancelled', 'the server cancelled its request');
          reject(new Error('the server cancelled its request'));
        },
        { once: true },
      );
      exchange.queue.push(question);
      exchange.wake?.();
    });
  }

  /** The session ended: every question is answered with an error, every call cancelled. */
  close(): void {
    for (const exchange of [...this.#calls.values()]) {
      this.#fail(exchange, 'the session ended');
      exchange.controller.abort(new Error('the session ended'));
    }
  }

  #refusal(
    request: UpstreamRequest,
  ): { outcome: 'denied'; reason: string } | { outcome: 'failed'; reason: string; error: Error } | undefined {
    if (request.method === 'sampling/createMessage') {
      const reason = samplingApproval(request.server, this.#options.sampling(request.server), this.#options.canElicit);
      if (reason !== undefined) return { outcome: 'denied', reason };
    }
    const waiting = [...this.#calls.values()].filter((e) => e.current !== undefined || e.queue.length > 0).length;
    const max = this.#options.maxPending ?? DEFAULT_MAX_PENDING_EXCHANGES;
    if (waiting < max) return undefined;
    const reason = `${waiting} calls of this session already wait for the client's answers, the gateway's limit`;
    return { outcome: 'failed', reason, error: new Error(reason) };
  }

  /** The call the question belongs to: the earliest call in progress to that server. */
  #carrier(server: string): Exchange | undefined {
    for (const exchange of this.#calls.values()) if (exchange.server === server) return exchange;
    return undefined;
  }

  #expire(exchange: Exchange): void {
    this.#fail(exchange, `the client did not come back with an answer within ${this.#options.timeoutMs} ms`);
  }

  /** Answers the call's questions with an error; the call goes on upstream and is recorded, nobody waits for it. */
  #fail(exchange: Exchange, reason: string): void {
    this.#forget(exchange);
    const questions = [...(exchange.current === undefined ? [] : [exchange.current]), ...exchange.queue];
    exchange.current = undefined;
    exchange.queue = [];
    for (const question of questions) {
      this.#record(question.request, 'failed', reason);
      question.reject(new Error(reason));
    }
  }

  #drop(exchange: Exchange, question: Question): boolean {
    if (exchange.current === question) {
      exchange.current = undefined;
      return true;
    }
    const before = exchange.queue.length;
    exchange.queue = exchange.queue.filter((q) => q !== question);
    return exchange.queue.length < before;
  }

  #forget(exchange: Exchange): void {
    clearTimeout(exchange.timer);
    this.#calls.delete(exchange.id);
  }

  #record(request: UpstreamRequest, outcome: 'forwarded' | 'denied' | 'failed' | 'cancelled', reason: string): void {
    const summary = upstreamSummary(request);
    const cut = reason.length > 300 ? `${reason.slice(0, 299)}…` : reason;
    this.#options.record([
      draft('upstream_request', { server: request.server, method: request.method, outcome, reason: cut, summary }),
    ]);
  }
}
