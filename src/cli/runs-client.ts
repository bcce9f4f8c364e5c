import { ToolgateApiError, ToolgateClient, ToolgateClientError } from '../client/index.ts';
import {
  ToolgateError,
  describeError,
  isErrorCode,
  type Run,
  type RunEvent,
  type RunInput,
  type RunStatus,
} from '../core/index.ts';
import type { RunRow } from './runs-backend.ts';

export interface RunsClientOptions {
  /** The server's root, without a trailing slash: `http://127.0.0.1:8787`. */
  url: string;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
}

/**
 * toolgate/client as the CLI uses it: the same requests, with the client's errors said the CLI's way (naming
 * --url, --api-key and TOOLGATE_API_KEY, and what to run next).
 */
export class RunsClient {
  readonly url: string;
  readonly #apiKey: string | undefined;
  readonly #client: ToolgateClient;

  constructor(options: RunsClientOptions) {
    this.url = options.url;
    this.#apiKey = options.apiKey;
    this.#client = new ToolgateClient({
      url: options.url,
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    });
  }

  async listRuns(query: { status?: RunStatus; limit: number }): Promise<RunRow[]> {
    const page = await this.#said(this.#client.listRuns(query));
    return page.runs;
  }

  getRun(runId: string): Promise<Run> {
    return this.#said(this.#client.getRun(runId));
  }

  readEvents(runId: string, after: number): Promise<RunEvent[]> {
    return this.#said(this.#client.readEvents(runId, { after }));
  }

  submitInput(runId: string, input: RunInput): Promise<Run> {
    return this.#said(this.#client.submitInput(runId, input));
  }

  cancel(runId: string, reason?: string): Promise<Run> {
    return this.#said(this.#client.cancel(runId, reason === undefined ? {} : { reason: reason.slice(0, 500) }));
  }

  /** The run's events after `after`, resumed with Last-Event-ID when a connection ends early, until its end. */
  async *events(runId: string, options: { after: number; signal?: AbortSignal }): AsyncGenerator<RunEvent> {
    try {
      yield* this.#client.events(runId, options);
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      if (error instanceof ToolgateClientError && error.reason === 'unexpected_answer') {
        throw new ToolgateError(
          'internal',
          `the server at ${this.url} sent something that is not a run event on the stream of run ${runId}; ` +
            `is --url right?`,
        );
      }
      if (error instanceof ToolgateClientError && error.reason === 'stream_gave_up') {
        throw new ToolgateError(
          'internal',
          `the event stream of run ${runId} at ${this.url} keeps ending without new events; try again later`,
        );
      }
      throw this.#cliError(error);
    }
  }

  async #said<T>(request: Promise<T>): Promise<T> {
    try {
      return await request;
    } catch (error) {
      throw this.#cliError(error);
    }
  }

  #cliError(error: unknown): unknown {
    if (error instanceof ToolgateApiError) return this.#failure(error);
    if (!(error instanceof ToolgateClientError)) return error;
    if (error.reason === 'unreachable') {
      const fetchError = error.cause;
      const cause = describeError(
        fetchError instanceof Error && fetchError.cause instanceof Error ? fetchError.cause : fetchError,
      );
      return new ToolgateError(
        'internal',
        `cannot reach the toolgate server at ${this.url} (${cause}); ` +
          `is it running, and is --url (or TOOLGATE_URL) right?`,
        { cause: error },
      );
    }
    if (error.reason === 'unexpected_answer') {
      return new ToolgateError(
        'internal',
        `the server at ${this.url} answered ${error.route ?? 'a request'} with something that is not ` +
          `toolgate's runs API; is --url right?`,
      );
    }
    return new ToolgateError('internal', error.message, { cause: error });
  }

  #failure(error: ToolgateApiError): ToolgateError {
    if (error.status === 401) {
      return new ToolgateError(
        'unauthorized',
        this.#apiKey === undefined
          ? `the server at ${this.url} needs an API key: pass --api-key or set TOOLGATE_API_KEY`
          : `the server at ${this.url} refused the API key (from --api-key or ` +
              `TOOLGATE_API_KEY): it is wrong, or not one of the server's keys`,
      );
    }
    if (error.status === 404 && error.code === 'not_found' && error.runId !== undefined) {
      return new ToolgateError(
        'not_found',
        `run ${error.runId} not found on the server at ${this.url} ` +
          `(toolgate runs list --url ${this.url} shows its runs)`,
      );
    }
    const { code } = error;
    if (!isErrorCode(code)) {
      const message = code === 'http_error' ? (error.body ?? '') : error.message;
      return new ToolgateError(
        'internal',
        `the server at ${this.url} answered ${error.method} with HTTP ` +
          `${error.status}${message === '' ? '' : `: ${message}`}; is it a toolgate server?`,
      );
    }
    return new ToolgateError(
      code,
      `the server at ${this.url} answered HTTP ${error.status} (${code}): ${error.message}`,
    );
  }
}
