import type { ModelChoices, Run, RunEvent, RunInput, StatsFilter, StatsSnapshot, ToolsView } from '../core/index.ts';
import {
  isModelChoices,
  isRun,
  isRunsPage,
  isSessionInfo,
  isSignedIn,
  isStatsSnapshot,
  isToolsView,
} from './answers.ts';
import { ToolgateClientError } from './client-error.ts';
import { ClientHttp, type ClientRequest } from './client-http.ts';
import { followEvents, readRunEvents, runPath, type FollowEventsOptions } from './follow-events.ts';
import type {
  CancelOptions,
  CreateRunOptions,
  CreateRunRequest,
  DecisionOptions,
  EditOptions,
  ForkOptions,
  ListRunsQuery,
  MarkDoneOptions,
  ReadEventsOptions,
  RequestOptions,
  RunSummary,
  RunsPage,
  SessionInfo,
  SignedIn,
  ToolgateClientOptions,
} from './types.ts';

/**
 * A typed client of toolgate's runs API (docs/server.md, docs/client.md), on fetch alone: it runs in Node and in
 * browsers. Non-2xx answers throw ToolgateApiError; no connection, or an answer that is not the runs API's, throws
 * ToolgateClientError.
 */
export class ToolgateClient {
  /** The server's root URL, without a trailing slash. */
  readonly url: string;
  readonly #http: ClientHttp;

  constructor(options: ToolgateClientOptions) {
    this.#http = new ClientHttp(options);
    this.url = this.#http.url;
  }

  /** POST /v1/runs: the new run (queued), or the existing one for a repeated Idempotency-Key and body. */
  async createRun(request: CreateRunRequest, options: CreateRunOptions = {}): Promise<Run> {
    const headers: Record<string, string> = {};
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    if (options.traceparent !== undefined) headers['traceparent'] = options.traceparent;
    return this.#http.json(
      { method: 'POST', path: '/v1/runs', route: 'POST /v1/runs', body: request, headers, signal: options.signal },
      isRun,
    );
  }

  /** GET /v1/runs/{id}: the whole run, with `pendingApproval` while it waits for a decision. */
  async getRun(runId: string, options: RequestOptions = {}): Promise<Run> {
    return this.#http.json(this.#runRequest({ runId, route: 'GET /v1/runs/{id}', signal: options.signal }), isRun);
  }

  /** GET /v1/runs: one page of run summaries, newest first. */
  async listRuns(query: ListRunsQuery = {}, options: RequestOptions = {}): Promise<RunsPage> {
    const params = new URLSearchParams();
    for (const name of ['status', 'threadId', 'strategy', 'q', 'cursor'] as const) {
      const value = query[name];
      if (value !== undefined) params.set(name, value);
    }
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.fields !== undefined) params.set('fields', query.fields.join(','));
    const search = params.size === 0 ? '' : `?${params.toString()}`;
    return this.#http.json(
      { method: 'GET', path: `/v1/runs${search}`, route: 'GET /v1/runs', signal: options.signal },
      isRunsPage,
    );
  }

  /** Every run the query matches, newest first, page after page (following `nextCursor`). */
  async *listAllRuns(query: ListRunsQuery = {}, options: RequestOptions = {}): AsyncGenerator<RunSummary> {
    let cursor = query.cursor;
    for (;;) {
      const page = await this.listRuns({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options);
      yield* page.runs;
      if (page.nextCursor === undefined) return;
      if (page.nextCursor === cursor) {
        throw this.#http.unexpected(
          { method: 'GET', path: '/v1/runs', route: 'GET /v1/runs' },
          'the same cursor again',
        );
      }
      cursor = page.nextCursor;
    }
  }

  /**
   * The run's events as they are appended (SSE), each once and in order, history first; the iterator ends after the
   * terminal event (`run_completed`, `run_failed`, `run_cancelled`). A run waiting for a person stays open: stop at
   * `approval_required` with `break`. A dropped connection is resumed with Last-Event-ID (bounded retries with
   * backoff; `reconnect: false` ends with the connection instead); a first connection that fails throws at once.
   */
  events(runId: string, options: FollowEventsOptions = {}): AsyncGenerator<RunEvent> {
    return followEvents(this.#http, checkedRunId(runId, 'GET /v1/runs/{id}/events'), options);
  }

  /** GET /v1/runs/{id}/events?format=json: the stored events after `after` (default: all). */
  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<RunEvent[]> {
    return readRunEvents(this.#http, checkedRunId(runId, 'GET /v1/runs/{id}/events'), options);
  }

  /** POST /v1/runs/{id}/input: a decision or a message, as the API takes it. Who decided is the caller of the key. */
  async submitInput(runId: string, input: RunInput, options: RequestOptions = {}): Promise<Run> {
    const { userId: _userId, ...body } = input;
    return this.#http.json(
      this.#runRequest({ runId, route: 'POST /v1/runs/{id}/input', suffix: '/input', body, signal: options.signal }),
      isRun,
    );
  }

  async approve(runId: string, options: DecisionOptions): Promise<Run> {
    return this.#decide(runId, { decision: 'approve', options });
  }

  async reject(runId: string, options: DecisionOptions): Promise<Run> {
    return this.#decide(runId, { decision: 'reject', options });
  }

  /** Approve with other arguments (checked against the tool's schema by the server). */
  async edit(runId: string, options: EditOptions): Promise<Run> {
    return this.#decide(runId, { decision: 'edit', options, extra: { arguments: options.arguments } });
  }

  /** A write whose outcome was unknown did happen: record `result`, do not call it again. */
  async markDone(runId: string, options: MarkDoneOptions): Promise<Run> {
    const extra = options.result === undefined ? {} : { result: options.result };
    return this.#decide(runId, { decision: 'mark_done', options, extra });
  }

  /** A message to the run (one that waits in `escalated` goes on with it). */
  async sendMessage(runId: string, text: string, options: RequestOptions = {}): Promise<Run> {
    return this.submitInput(runId, { type: 'message', text }, options);
  }

  /** POST /v1/runs/{id}/cancel: the run once it has ended (or as it stands, if its owner did not act in time). */
  async cancel(runId: string, options: CancelOptions = {}): Promise<Run> {
    const body = options.reason === undefined ? {} : { body: { reason: options.reason } };
    return this.#http.json(
      this.#runRequest({
        runId,
        route: 'POST /v1/runs/{id}/cancel',
        suffix: '/cancel',
        signal: options.signal,
        ...body,
      }),
      isRun,
    );
  }

  /**
   * POST /v1/runs/{id}/fork: a new run (queued) from the run's conversation up to `afterEventId`, driven live from
   * there under its settings with `settings` over them; the original is not changed.
   */
  async fork(runId: string, options: ForkOptions): Promise<Run> {
    const { afterEventId, settings, traceparent, signal } = options;
    const body = settings === undefined ? { afterEventId } : { afterEventId, settings };
    return this.#http.json(
      {
        ...this.#runRequest({ runId, route: 'POST /v1/runs/{id}/fork', suffix: '/fork', body, signal }),
        ...(traceparent === undefined ? {} : { headers: { traceparent } }),
      },
      isRun,
    );
  }

  /** GET /v1/tools: the tools the caller's tenant may use, and every tool server's state. */
  async listTools(options: RequestOptions = {}): Promise<ToolsView> {
    return this.#http.json(
      { method: 'GET', path: '/v1/tools', route: 'GET /v1/tools', signal: options.signal },
      isToolsView,
    );
  }

  /** GET /v1/models: the models the caller may choose for a run, and the default. */
  async listModels(options: RequestOptions = {}): Promise<ModelChoices> {
    return this.#http.json(
      { method: 'GET', path: '/v1/models', route: 'GET /v1/models', signal: options.signal },
      isModelChoices,
    );
  }

  /**
   * GET /v1/stats: the live outcome statistics of the server's window, narrowed by the filter (a tenant's key sees
   * its own tenant only).
   */
  async getStats(filter: StatsFilter = {}, options: RequestOptions = {}): Promise<StatsSnapshot> {
    const params = new URLSearchParams();
    for (const name of ['tenant', 'intent', 'strategy', 'model'] as const) {
      const value = filter[name];
      if (value !== undefined) params.set(name, value);
    }
    const search = params.size === 0 ? '' : `?${params.toString()}`;
    return this.#http.json(
      { method: 'GET', path: `/v1/stats${search}`, route: 'GET /v1/stats', signal: options.signal },
      isStatsSnapshot,
    );
  }

  /** GET /v1/session: whether this browser is signed in, and as whom (never 401). */
  async getSession(options: RequestOptions = {}): Promise<SessionInfo> {
    return this.#http.json(
      { method: 'GET', path: '/v1/session', route: 'GET /v1/session', signal: options.signal },
      isSessionInfo,
    );
  }

  /** POST /v1/session: trades an API key for the session cookie; keep the answer's csrfToken for later requests. */
  async signIn(apiKey: string, options: RequestOptions = {}): Promise<SignedIn> {
    return this.#http.json(
      { method: 'POST', path: '/v1/session', route: 'POST /v1/session', body: { apiKey }, signal: options.signal },
      isSignedIn,
    );
  }

  /** DELETE /v1/session: clears the session cookie. */
  async signOut(options: RequestOptions = {}): Promise<void> {
    await this.#http.send({
      method: 'DELETE',
      path: '/v1/session',
      route: 'DELETE /v1/session',
      signal: options.signal,
    });
  }

  #decide(
    runId: string,
    decision: { decision: 'approve' | 'reject' | 'edit' | 'mark_done'; options: DecisionOptions; extra?: object },
  ): Promise<Run> {
    const { toolCallId, reason, signal } = decision.options;
    if (typeof toolCallId !== 'string' || toolCallId === '') {
      throw new ToolgateClientError({
        reason: 'usage',
        message:
          `${decision.decision} needs the toolCallId of the call waiting for a decision ` +
          `(the run's pendingApproval.toolCallId); got ${JSON.stringify(toolCallId)}`,
        runId,
      });
    }
    const body = {
      type: 'approval',
      toolCallId,
      decision: decision.decision,
      ...decision.extra,
      ...(reason === undefined ? {} : { reason }),
    };
    return this.#http.json(
      this.#runRequest({ runId, route: 'POST /v1/runs/{id}/input', suffix: '/input', body, signal }),
      isRun,
    );
  }

  #runRequest(request: {
    runId: string;
    route: string;
    suffix?: string;
    body?: unknown;
    signal: AbortSignal | undefined;
  }): ClientRequest {
    const runId = checkedRunId(request.runId, request.route);
    return {
      method: request.route.startsWith('POST') ? 'POST' : 'GET',
      path: `${runPath(runId)}${request.suffix ?? ''}`,
      route: request.route,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: request.signal,
      runId,
    };
  }
}

function checkedRunId(runId: unknown, route: string): string {
  if (typeof runId === 'string' && runId !== '') return runId;
  throw new ToolgateClientError({
    reason: 'usage',
    message: `${route} needs a run id (such as "run_…"); got ${JSON.stringify(runId)}`,
  });
}
