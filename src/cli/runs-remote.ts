import { setTimeout as sleep } from 'node:timers/promises';
import { ToolgateError, isTerminalEvent, type Run, type RunEvent, type RunInput } from '../core/index.ts';
import {
  isSettled,
  listByStatus,
  type DriveHooks,
  type ListQuery,
  type RunRow,
  type RunsBackend,
} from './runs-backend.ts';
import { RunsClient } from './runs-client.ts';
import type { RemoteWhere } from './runs-where.ts';
import { isRunEventAnswer } from './api-answers.ts';

/** Pause before reconnecting to a stream that ended early; it grows with each try that brings nothing. */
export const RECONNECT_DELAY_MS = 500;
/** Reconnections in a row that bring no event before following gives up. */
export const MAX_IDLE_RECONNECTS = 10;

/** The runs of a toolgate server: the server drives them; this follows their events. */
export class RemoteRuns implements RunsBackend {
  readonly label: string;
  readonly #client: RunsClient;

  constructor(where: RemoteWhere) {
    this.#client = new RunsClient({ url: where.url, ...(where.apiKey === undefined ? {} : { apiKey: where.apiKey }) });
    this.label = `the server at ${where.url}`;
  }

  list(query: ListQuery): Promise<RunRow[]> {
    return listByStatus(query, (status) =>
      this.#client.listRuns({ limit: query.limit, ...(status === undefined ? {} : { status }) }),
    );
  }

  get(runId: string): Promise<Run> {
    return this.#client.getRun(runId);
  }

  events(runId: string, after: number): Promise<RunEvent[]> {
    return this.#client.readEvents(runId, after);
  }

  /**
   * The SSE stream, resumed with Last-Event-ID whenever the server ends it
   * early (a restart, a long catch-up, an overflow). It ends on its own only
   * with the run; a wait for a person is seen as an approval_required event
   * that is still the run's last.
   */
  async follow(runId: string, options: DriveHooks & { after: number }): Promise<Run> {
    let last = options.after;
    let idle = 0;
    let run = await this.#client.getRun(runId);
    while (!isSettled(run, last)) {
      const seenBefore = last;
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      options.signal?.addEventListener('abort', stop, { once: true });
      let settled: Run | undefined;
      try {
        for await (const message of this.#client.streamEvents(runId, last, controller.signal)) {
          if (message.event === 'overflow' || message.id === undefined) continue;
          const event: unknown = JSON.parse(message.data);
          if (!isRunEventAnswer(event))
            throw new ToolgateError(
              'internal',
              `${this.label} sent something that is not a run event on the stream of run ${runId}; is --url right?`,
            );
          if (event.id <= last) continue;
          last = event.id;
          options.onEvent(event);
          if (isTerminalEvent(event) || event.type === 'approval_required') {
            const now = await this.#client.getRun(runId);
            if (isSettled(now, last)) {
              settled = now;
              break;
            }
          }
        }
      } catch (error) {
        if (options.signal?.aborted === true) throw error;
        // A connection cut mid-stream is resumed below, like a stream the server ended.
        if (!(error instanceof TypeError)) throw error;
      } finally {
        controller.abort();
        options.signal?.removeEventListener('abort', stop);
      }
      if (settled !== undefined) return settled;
      idle = last > seenBefore ? 0 : idle + 1;
      if (idle > MAX_IDLE_RECONNECTS) {
        throw new ToolgateError(
          'internal',
          `the event stream of run ${runId} at ${this.#client.url} keeps ending without new events; try again later`,
        );
      }
      run = await this.#client.getRun(runId);
      if (idle > 0 && !isSettled(run, last))
        await sleep(
          RECONNECT_DELAY_MS * idle,
          undefined,
          options.signal === undefined ? {} : { signal: options.signal },
        );
    }
    return run;
  }

  async prepareDecision(): Promise<void> {
    // The server has the run's tools and model.
  }

  record(runId: string, input: RunInput): Promise<Run> {
    return this.#client.submitInput(runId, input);
  }

  async decide(runId: string, input: RunInput, hooks: DriveHooks): Promise<Run> {
    const before = await this.#client.getRun(runId);
    await this.#client.submitInput(runId, input);
    return this.follow(runId, { ...hooks, after: before.lastEventId });
  }

  cancel(runId: string, reason: string | undefined): Promise<Run> {
    return this.#client.cancel(runId, reason);
  }

  async close(): Promise<void> {
    // Nothing is held open between requests.
  }
}
