import type { ServerResponse } from 'node:http';
import { ToolgateError } from '../../core/errors.ts';
import type { RunEvent } from '../../core/events.ts';
import { TERMINAL_RUN_STATUSES } from '../../core/runs.ts';
import { parseNonNegativeInt, readQuery } from '../query.ts';
import { sendJson } from '../respond.ts';
import { HISTORY_PAGE_SIZE, RunEventStream } from '../run-event-stream.ts';
import { RunFeeds } from '../run-feeds.ts';
import type { RequestContext, ServerState } from '../server-context.ts';

const EVENT_FORMATS = ['sse', 'json', 'jsonl'];

/**
 * GET /v1/runs/{id}/events: SSE from the resume point, `?format=json` for the
 * log at once, `?format=jsonl` for the log as a download (one event per line).
 */
export async function getRunEvents(ctx: RequestContext): Promise<void> {
  const query = readQuery(ctx.url, ['after', 'format']);
  if (query.format !== undefined && !EVENT_FORMATS.includes(query.format)) {
    throw new ToolgateError(
      'usage',
      `format must be "sse" (the default), "json" or "jsonl", got "${query.format.slice(0, 40)}"`,
    );
  }
  const runId = ctx.params['id'] ?? '';
  const after = resumePoint(ctx.req.headers['last-event-id'], query.after);
  const run = await ctx.state.service.getRun(ctx.caller, runId);
  if (run === undefined) throw runNotFound(runId);
  if (query.format === 'json') {
    sendJson(ctx.res, 200, { events: await readAllEvents(ctx, runId, after) });
    return;
  }
  if (query.format === 'jsonl') {
    await sendJsonLines(ctx, runId, after);
    return;
  }
  await streamRunEvents(ctx, { runId, after, lastEventId: run.lastEventId });
}

/**
 * Streams a run the caller may see (checked by the route) from `after`. `lastEventId`: the run's, as the route read
 * it; 0 (the default) is right for a run just created.
 */
export async function streamRunEvents(
  ctx: RequestContext,
  options: { runId: string; after: number; headers?: Record<string, string>; lastEventId?: number },
): Promise<void> {
  const { state, caller } = ctx;
  if (state.closing)
    throw new ToolgateError(
      'shutting_down',
      'the server is shutting down; reconnect to another instance or retry shortly',
    );
  const stream = new RunEventStream({
    res: ctx.res,
    runId: options.runId,
    after: options.after,
    store: state.store,
    feeds: feedsOf(state),
    position: options.lastEventId ?? 0,
    heartbeatMs: state.heartbeatMs,
    bufferLimitBytes: state.sseBufferLimitBytes,
    idleTimeoutMs: state.sseIdleTimeoutMs,
    historyTimeoutMs: state.sseHistoryTimeoutMs,
    isFinished: async () => {
      const run = await state.service.getRun(caller, options.runId);
      return run === undefined || TERMINAL_RUN_STATUSES.has(run.status);
    },
    log: state.log,
    onOverflow: () => {
      state.sseOverflows++;
    },
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  });
  state.streams.add(stream);
  void stream.done.then(() => state.streams.delete(stream));
  await stream.start();
}

/** Each server's followed runs: its streams of one run share one follower (run-feeds.ts). */
const feedsByServer = new WeakMap<ServerState, RunFeeds>();

function feedsOf(state: ServerState): RunFeeds {
  let feeds = feedsByServer.get(state);
  if (feeds === undefined) {
    feeds = new RunFeeds({ store: state.store, pollMs: state.ssePollMs, log: state.log });
    feedsByServer.set(state, feeds);
  }
  return feeds;
}

export function runNotFound(runId: string): ToolgateError {
  return new ToolgateError('not_found', `run "${runId}" not found`);
}

/** The header wins over `?after=`: a reconnecting EventSource sends the header on the same URL. */
function resumePoint(header: string | string[] | undefined, after: string | undefined): number {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value !== undefined && value.trim() !== '') return parseNonNegativeInt('Last-Event-ID', value);
  return after === undefined ? 0 : parseNonNegativeInt('after', after);
}

/** The log after `after`, a page at a time (a long log is never read whole into one query). */
async function* eventPages(ctx: RequestContext, runId: string, after: number): AsyncGenerator<RunEvent[]> {
  let cursor = after;
  while (true) {
    const page = await ctx.state.store.readEvents(runId, { after: cursor, limit: HISTORY_PAGE_SIZE });
    if (page.length > 0) yield page;
    const last = page.at(-1);
    if (last === undefined || page.length < HISTORY_PAGE_SIZE) return;
    cursor = last.id;
  }
}

async function readAllEvents(ctx: RequestContext, runId: string, after: number): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const page of eventPages(ctx, runId, after)) events.push(...page);
  return events;
}

/** The log as NDJSON, written page by page at the client's pace (a long log is never held whole). */
async function sendJsonLines(ctx: RequestContext, runId: string, after: number): Promise<void> {
  const { res } = ctx;
  const filename = runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || 'run';
  res.writeHead(200, {
    'Content-Type': 'application/x-ndjson; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}.jsonl"`,
    'Cache-Control': 'no-store',
  });
  for await (const page of eventPages(ctx, runId, after)) {
    if (res.destroyed) break;
    if (!res.write(page.map((event) => `${JSON.stringify(event)}\n`).join(''))) await drained(res);
  }
  res.end();
}

/** Resolves when the socket takes more bytes, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
