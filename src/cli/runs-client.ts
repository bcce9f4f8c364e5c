import {
  ToolgateError,
  isErrorCode,
  isJsonObject,
  type JsonObject,
  type Run,
  type RunEvent,
  type RunInput,
  type RunStatus,
  describeError,
} from '../core/index.ts';
import { isRunAnswer, isRunEventAnswer } from './api-answers.ts';
import { readSse, type SseMessage } from './runs-sse.ts';

export interface RunsClientOptions {
  /** The server's root, without a trailing slash: `http://127.0.0.1:8787`. */
  url: string;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
}

/** A small client of toolgate's runs API (docs/server.md), on the global fetch. */
export class RunsClient {
  readonly url: string;
  readonly #apiKey: string | undefined;

  constructor(options: RunsClientOptions) {
    this.url = options.url;
    this.#apiKey = options.apiKey;
  }

  async listRuns(query: { status?: RunStatus; limit: number }): Promise<JsonObject[]> {
    const params = new URLSearchParams({
      limit: String(query.limit),
      ...(query.status === undefined ? {} : { status: query.status }),
    });
    const body = await this.#json(`/v1/runs?${params.toString()}`);
    const runs = isJsonObject(body) ? body['runs'] : undefined;
    if (!Array.isArray(runs)) throw this.#unexpected('GET /v1/runs');
    return runs.filter(isJsonObject);
  }

  async getRun(runId: string): Promise<Run> {
    return this.#run(runPath(runId), {}, runId);
  }

  async readEvents(runId: string, after: number): Promise<RunEvent[]> {
    const body = await this.#json(`${runPath(runId)}/events?format=json&after=${after}`, {}, runId);
    const events: unknown[] | undefined =
      isJsonObject(body) && Array.isArray(body['events']) ? body['events'] : undefined;
    if (events === undefined || !events.every(isRunEventAnswer)) throw this.#unexpected('GET /v1/runs/{id}/events');
    return events;
  }

  async submitInput(runId: string, input: RunInput): Promise<Run> {
    // Who decided is the caller the key belongs to: the API takes no user from the body.
    const { userId: _userId, ...body } = input;
    return this.#run(`${runPath(runId)}/input`, { method: 'POST', body: JSON.stringify(body) }, runId);
  }

  async cancel(runId: string, reason?: string): Promise<Run> {
    const body = reason === undefined ? {} : { body: JSON.stringify({ reason: reason.slice(0, 500) }) };
    return this.#run(`${runPath(runId)}/cancel`, { method: 'POST', ...body }, runId);
  }

  /** The run's SSE stream from after event `after` (sent as Last-Event-ID), until the server ends it. */
  async *streamEvents(runId: string, after: number, signal: AbortSignal): AsyncGenerator<SseMessage> {
    const response = await this.#fetch(
      `${runPath(runId)}/events`,
      { headers: { accept: 'text/event-stream', ...(after > 0 ? { 'last-event-id': String(after) } : {}) }, signal },
      runId,
    );
    if (response.body === null) throw this.#unexpected('GET /v1/runs/{id}/events');
    yield* readSse(response.body);
  }

  async #run(path: string, init: RequestInit, runId: string): Promise<Run> {
    const body = await this.#json(path, init, runId);
    if (!isRunAnswer(body)) throw this.#unexpected(`${init.method ?? 'GET'} ${path}`);
    return body;
  }

  async #json(path: string, init: RequestInit = {}, runId?: string): Promise<unknown> {
    const response = await this.#fetch(path, init, runId);
    try {
      const body: unknown = await response.json();
      return body;
    } catch {
      throw this.#unexpected(`${init.method ?? 'GET'} ${path}`);
    }
  }

  async #fetch(path: string, init: RequestInit, runId: string | undefined): Promise<Response> {
    const headers = new Headers(init.headers);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    if (this.#apiKey !== undefined) headers.set('authorization', `Bearer ${this.#apiKey}`);
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted === true) throw error;
      const cause = describeError(error instanceof Error && error.cause instanceof Error ? error.cause : error);
      throw new ToolgateError(
        'internal',
        `cannot reach the toolgate server at ${this.url} (${cause}); ` +
          `is it running, and is --url (or TOOLGATE_URL) right?`,
        { cause: error },
      );
    }
    if (response.ok) return response;
    throw await this.#failure(response, init.method ?? 'GET', runId);
  }

  async #failure(response: Response, method: string, runId: string | undefined): Promise<ToolgateError> {
    const text = await response.text().catch(() => '');
    let code: unknown;
    let message = text.slice(0, 300);
    try {
      const body: unknown = JSON.parse(text);
      const error = isJsonObject(body) ? body['error'] : undefined;
      if (isJsonObject(error)) {
        code = error['code'];
        if (typeof error['message'] === 'string') message = error['message'];
      }
    } catch {
      // Not one of ours: keep the text.
    }
    if (response.status === 401) {
      return new ToolgateError(
        'unauthorized',
        this.#apiKey === undefined
          ? `the server at ${this.url} needs an API key: pass --api-key or set TOOLGATE_API_KEY`
          : `the server at ${this.url} refused the API key (from --api-key or ` +
              `TOOLGATE_API_KEY): it is wrong, or not one of the server's keys`,
      );
    }
    if (response.status === 404 && code === 'not_found' && runId !== undefined) {
      return new ToolgateError(
        'not_found',
        `run ${runId} not found on the server at ${this.url} (toolgate runs list --url ${this.url} shows its runs)`,
      );
    }
    if (!isErrorCode(code))
      return new ToolgateError(
        'internal',
        `the server at ${this.url} answered ${method} with HTTP ` +
          `${response.status}${message === '' ? '' : `: ${message}`}; is it a toolgate server?`,
      );
    return new ToolgateError(code, `the server at ${this.url} answered HTTP ${response.status} (${code}): ${message}`);
  }

  #unexpected(what: string): ToolgateError {
    return new ToolgateError(
      'internal',
      `the server at ${this.url} answered ${what} with something that is not toolgate's runs API; is --url right?`,
    );
  }
}

function runPath(runId: string): string {
  return `/v1/runs/${encodeURIComponent(runId)}`;
}
