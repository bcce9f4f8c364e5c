import { isTerminalEvent, type Run, type RunEvent, type RunInput } from '../core/index.ts';
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
   * The SSE stream (the client resumes it with Last-Event-ID whenever the
   * server ends it early: a restart, a long catch-up, an overflow). It ends on
   * its own only with the run; a wait for a person is seen as an
   * approval_required event that is still the run's last.
   */
  async follow(runId: string, options: DriveHooks & { after: number }): Promise<Run> {
    let last = options.after;
    const run = await this.#client.getRun(runId);
    if (isSettled(run, last)) return run;
    const stream = this.#client.events(runId, {
      after: last,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    for await (const event of stream) {
      last = event.id;
      options.onEvent(event);
      if (isTerminalEvent(event) || event.type === 'approval_required') {
        const now = await this.#client.getRun(runId);
        if (isSettled(now, last)) return now;
      }
    }
    return this.#client.getRun(runId);
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
