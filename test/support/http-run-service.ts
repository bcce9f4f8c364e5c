// The RunService port spoken over the runs API (docs/server.md): what a client of a
// `toolgate serve` process gets, as the port's own methods, so the behaviour suite of
// RunService (test/contract/run-service.contract.ts) runs against a real server too.
// Errors come back as ToolgateErrors with the code the server answered.
import {
  ToolgateError,
  isErrorCode,
  isJsonObject,
  type Caller,
  type ForkRunRequest,
  type IdempotencyOptions,
  type ModelChoices,
  type Readiness,
  type Run,
  type RunEvent,
  type RunInput,
  type RunListQuery,
  type RunPage,
  type RunService,
  type StartRunRequest,
  type ToolsView,
} from '../../src/core/index.ts';
import { readSse } from './sse-client.ts';

export interface HttpRunServiceOptions {
  /** The server's root: `http://127.0.0.1:8787`. */
  url: string;
  /** The API key each caller authenticates with. */
  keyOf: (caller: Caller) => string;
}

/** What a client sends besides the port's arguments. */
interface Call {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export class HttpRunService implements RunService {
  readonly url: string;
  readonly #keyOf: (caller: Caller) => string;

  constructor(options: HttpRunServiceOptions) {
    this.url = options.url;
    this.#keyOf = options.keyOf;
  }

  async startRun(
    caller: Caller,
    request: StartRunRequest,
    idempotency?: IdempotencyOptions,
  ): Promise<{ run: Run; created: boolean }> {
    // The server hashes the body itself: the same key with another body is refused whatever hash a client names.
    const { traceparent, ...body } = request;
    const headers = {
      ...(idempotency === undefined ? {} : { 'idempotency-key': idempotency.key }),
      ...(traceparent === undefined ? {} : { traceparent }),
    };
    const response = await this.#fetch(caller, '/v1/runs', { method: 'POST', body, headers });
    return { run: (await response.json()) as Run, created: response.status === 201 };
  }

  async getRun(caller: Caller, runId: string): Promise<Run | undefined> {
    try {
      return (await (await this.#fetch(caller, runPath(runId))).json()) as Run;
    } catch (error) {
      if (error instanceof ToolgateError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /** GET /v1/runs answers summaries: each run of the page is read whole, in the page's order. */
  async listRuns(caller: Caller, query: RunListQuery): Promise<RunPage> {
    const params = new URLSearchParams({ fields: 'id' });
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const page = (await (await this.#fetch(caller, `/v1/runs?${params.toString()}`)).json()) as {
      runs: { id: string }[];
      nextCursor?: string;
    };
    const runs: Run[] = [];
    for (const { id } of page.runs) {
      const run = await this.getRun(caller, id);
      if (run !== undefined) runs.push(run);
    }
    return page.nextCursor === undefined ? { runs } : { runs, nextCursor: page.nextCursor };
  }

  async submitInput(caller: Caller, runId: string, input: RunInput): Promise<Run> {
    // Who decided is the caller the key belongs to: the API takes no user from the body.
    const { userId: _userId, ...body } = input;
    return (await (await this.#fetch(caller, `${runPath(runId)}/input`, { method: 'POST', body })).json()) as Run;
  }

  async cancelRun(caller: Caller, runId: string, reason?: string): Promise<Run> {
    const body = reason === undefined ? {} : { reason };
    return (await (await this.#fetch(caller, `${runPath(runId)}/cancel`, { method: 'POST', body })).json()) as Run;
  }

  /** POST /v1/runs/{id}/fork: 201 with the fork, its Location naming it. */
  async forkRun(caller: Caller, runId: string, request: ForkRunRequest): Promise<{ run: Run }> {
    const { traceparent, ...body } = request;
    const headers = traceparent === undefined ? undefined : { traceparent };
    const response = await this.#fetch(caller, `${runPath(runId)}/fork`, {
      method: 'POST',
      body,
      ...(headers === undefined ? {} : { headers }),
    });
    const run = (await response.json()) as Run;
    if (response.status !== 201 || response.headers.get('location') !== runPath(run.id))
      throw new Error(`POST ${runPath(runId)}/fork → ${response.status}, Location ${response.headers.get('location')}`);
    return { run };
  }

  async listTools(caller: Caller): Promise<ToolsView> {
    return (await (await this.#fetch(caller, '/v1/tools')).json()) as ToolsView;
  }

  async listModels(caller: Caller): Promise<ModelChoices> {
    return (await (await this.#fetch(caller, '/v1/models')).json()) as ModelChoices;
  }

  async ready(): Promise<Readiness> {
    const response = await fetch(`${this.url}/readyz`);
    const body = (await response.json()) as { status: string; reason?: string; servers?: Readiness['servers'] };
    return {
      ready: response.status === 200 && body.status === 'ready',
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      ...(body.servers === undefined ? {} : { servers: body.servers }),
    };
  }

  /** GET /v1/runs/{id}/events?format=json&after=: the stored events after `after`, in order. */
  async events(caller: Caller, runId: string, after: number): Promise<RunEvent[]> {
    const body = (await (await this.#fetch(caller, `${runPath(runId)}/events?format=json&after=${after}`)).json()) as {
      events: RunEvent[];
    };
    return body.events;
  }

  /** The run's SSE stream resumed after `after` (Last-Event-ID), until `until` says stop or the server ends it. */
  async follow(
    caller: Caller,
    runId: string,
    options: { after: number; until: (event: RunEvent) => boolean },
  ): Promise<RunEvent[]> {
    const stop = new AbortController();
    const seen: RunEvent[] = [];
    const headers: Record<string, string> = { authorization: `Bearer ${this.#keyOf(caller)}` };
    if (options.after > 0) headers['last-event-id'] = String(options.after);
    try {
      for await (const message of readSse(`${this.url}${runPath(runId)}/events`, { headers, signal: stop.signal })) {
        if (message.event === 'overflow') continue;
        const event = JSON.parse(message.data) as RunEvent;
        seen.push(event);
        if (options.until(event)) break;
      }
    } finally {
      stop.abort();
    }
    return seen;
  }

  async #fetch(caller: Caller, path: string, call: Call = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#keyOf(caller)}`, ...call.headers };
    const init: RequestInit = { method: call.method ?? 'GET', headers };
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(call.body);
    }
    const response = await fetch(`${this.url}${path}`, init);
    if (response.ok) return response;
    const text = await response.text();
    const parsed: unknown = text.startsWith('{') ? JSON.parse(text) : undefined;
    const error = isJsonObject(parsed) ? parsed['error'] : undefined;
    const code = isJsonObject(error) ? error['code'] : undefined;
    const message = isJsonObject(error) && typeof error['message'] === 'string' ? error['message'] : text;
    throw new ToolgateError(
      isErrorCode(code) ? code : 'internal',
      `${init.method} ${path} → HTTP ${response.status}: ${message}`,
      { details: { status: response.status } },
    );
  }
}

function runPath(runId: string): string {
  return `/v1/runs/${encodeURIComponent(runId)}`;
}
