import type { IncomingHttpHeaders } from 'node:http';
import { ToolgateError } from '../../core/errors.ts';
import { isOneOf } from '../../core/is-one-of.ts';
import type { IdempotencyOptions, RunListQuery } from '../../core/ports/run-service.ts';
import { MAX_RUN_SEARCH_LENGTH } from '../../core/run-filter.ts';
import { RUN_STATUSES, RUN_STRATEGY_LABELS, type RunStatus, type RunStrategyLabel } from '../../core/runs.ts';
import { checkTraceparent } from '../../orchestrator/call/tracing.ts';
import { readJsonBody } from '../body.ts';
import { checkedHeader } from '../checked-header.ts';
import { httpStatusFor } from '../http-status.ts';
import { parseBooleanParam, readQuery } from '../query.ts';
import { HttpError, sendJson, sendJsonResponse } from '../respond.ts';
import { parseFields, summarizeRun } from '../run-summary.ts';
import { waitForFirstTurn, type FirstTurn } from '../wait-first-turn.ts';
import { parseCancelBody, parseForkRunBody, parseRunInputBody, parseStartRunBody, requestHash } from '../schemas.ts';
import type { RequestContext } from '../server-context.ts';
import { runNotFound, streamRunEvents } from './events.ts';

export const MAX_LIST_LIMIT = 200;

const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * POST /v1/runs: 201 with the new run, 200 when the Idempotency-Key names an
 * existing one; `?stream=true` answers with its SSE stream. A request that
 * cannot start (a model the caller may not use, no tools reachable) is an HTTP
 * error before any SSE byte; with `?wait=first-turn` the answer also waits for
 * the first model turn, and a failing one is an HTTP error with the model
 * error's status (401, 429, 502, 504) instead of an SSE `run_failed`.
 */
export async function createRun(ctx: RequestContext): Promise<void> {
  const query = readQuery(ctx.url, ['stream', 'wait']);
  const stream = parseBooleanParam('stream', query.stream);
  if (query.wait !== undefined && query.wait !== 'first-turn') {
    throw new ToolgateError(
      'usage',
      `wait must be "first-turn" (hold the answer until the model's first turn succeeded), got "${query.wait}"`,
    );
  }
  const request = parseStartRunBody(await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes }));
  const key = idempotencyKey(ctx.req.headers);
  const idempotency: IdempotencyOptions | undefined =
    key === undefined ? undefined : { key, requestHash: requestHash(request) };
  // After the hash: a retry of the same request comes with a trace context of its own. A malformed one is ignored
  // (W3C).
  const traceparent = traceparentHeader(ctx.req.headers);
  if (traceparent !== undefined) request.traceparent = traceparent;
  const started = await ctx.state.service.startRun(ctx.caller, request, idempotency);
  const { created } = started;
  let run = started.run;
  const headers = { Location: runPath(run.id) };
  if (query.wait === 'first-turn' && created) {
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    ctx.res.once('close', onClose);
    let first: FirstTurn;
    try {
      first = await waitForFirstTurn(ctx.state.store, run.id, gone.signal);
    } finally {
      ctx.res.off('close', onClose);
    }
    if (!first.ok) {
      throw new HttpError({
        status: httpStatusFor(first.error.code),
        code: first.error.code,
        message: `run ${run.id} failed in its first model turn: ${first.error.message}`,
        headers,
      });
    }
    run = (await ctx.state.service.getRun(ctx.caller, run.id)) ?? run;
  }
  // A shutdown that began while the run was being created must not hide it: answer with the run instead.
  if (stream && !ctx.state.closing) {
    await streamRunEvents(ctx, { runId: run.id, after: 0, headers, lastEventId: run.lastEventId });
    return;
  }
  sendJsonResponse(ctx.res, { status: created ? 201 : 200, body: run, headers });
}

/**
 * GET /v1/runs: newest first, one page of summaries (see summarizeRun;
 * `fields=` picks fields). `strategy=` and `q=` filter in the service, which
 * may answer fewer than `limit` runs with a nextCursor to go on.
 */
export async function listRuns(ctx: RequestContext): Promise<void> {
  const query = readQuery(ctx.url, ['status', 'threadId', 'limit', 'cursor', 'fields', 'strategy', 'q']);
  const fields = parseFields(query.fields);
  const listQuery: RunListQuery = {};
  if (query.status !== undefined) listQuery.status = parseStatus(query.status);
  if (query.strategy !== undefined) listQuery.strategy = parseStrategy(query.strategy);
  if (query.q !== undefined && query.q !== '') listQuery.q = parseSearch(query.q);
  if (query.threadId !== undefined) listQuery.threadId = query.threadId;
  if (query.limit !== undefined) listQuery.limit = parseLimit(query.limit);
  if (query.cursor !== undefined) listQuery.cursor = query.cursor;
  const page = await ctx.state.service.listRuns(ctx.caller, listQuery);
  const runs = page.runs.map((run) => summarizeRun(run, fields));
  sendJson(ctx.res, 200, page.nextCursor === undefined ? { runs } : { runs, nextCursor: page.nextCursor });
}

/** GET /v1/runs/{id}: the run, with `pendingApproval` while it waits for a decision. */
export async function getRun(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const runId = ctx.params['id'] ?? '';
  const run = await ctx.state.service.getRun(ctx.caller, runId);
  if (run === undefined) throw runNotFound(runId);
  sendJson(ctx.res, 200, run);
}

/** POST /v1/runs/{id}/input: an approval decision or a message → 202 with the run. */
export async function submitInput(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const input = parseRunInputBody(await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes }));
  // Who decided is recorded in the run's log, and it is the caller, never a body field.
  if (ctx.caller.userId !== undefined) input.userId = ctx.caller.userId;
  const run = await ctx.state.service.submitInput(ctx.caller, ctx.params['id'] ?? '', input);
  sendJson(ctx.res, 202, run);
}

/** POST /v1/runs/{id}/cancel → 202 with the run; a finished run → 409. */
export async function cancelRun(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  // No body is needed; one that is sent must be well-formed, within the limit, and at most a reason.
  const reason = parseCancelBody(await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes }));
  const run = await ctx.state.service.cancelRun(ctx.caller, ctx.params['id'] ?? '', reason);
  sendJson(ctx.res, 202, run);
}

/**
 * POST /v1/runs/{id}/fork: 201 with the new run (queued; Location names it), whose log starts with the original's
 * conversation up to `afterEventId` and goes on live under the original's settings with the body's over them.
 */
export async function forkRun(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const request = parseForkRunBody(await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes }));
  const traceparent = traceparentHeader(ctx.req.headers);
  if (traceparent !== undefined) request.traceparent = traceparent;
  const { run } = await ctx.state.service.forkRun(ctx.caller, ctx.params['id'] ?? '', request);
  sendJsonResponse(ctx.res, { status: 201, body: run, headers: { Location: runPath(run.id) } });
}

function runPath(runId: string): string {
  return `/v1/runs/${encodeURIComponent(runId)}`;
}

/** A well-formed W3C `traceparent` header, or undefined (a malformed one is ignored, as the spec says). */
function traceparentHeader(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['traceparent'];
  return typeof raw === 'string' ? checkTraceparent(raw.trim().toLowerCase()) : undefined;
}

function idempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  return checkedHeader(headers, {
    name: 'idempotency-key',
    pattern: IDEMPOTENCY_KEY_PATTERN,
    problem: 'Idempotency-Key must be 1 to 255 printable ASCII characters (a UUID is a good choice)',
  });
}

function parseStatus(value: string): RunStatus {
  if (!isOneOf(RUN_STATUSES, value)) {
    throw new ToolgateError('usage', `status must be one of ${RUN_STATUSES.join(', ')}; got "${value}"`);
  }
  return value;
}

function parseStrategy(value: string): RunStrategyLabel {
  if (!isOneOf(RUN_STRATEGY_LABELS, value)) {
    throw new ToolgateError(
      'usage',
      `strategy must be one of ${RUN_STRATEGY_LABELS.join(', ')}; got "${value.slice(0, 40)}"`,
    );
  }
  return value;
}

function parseSearch(value: string): string {
  if (value.length > MAX_RUN_SEARCH_LENGTH) {
    throw new ToolgateError(
      'usage',
      `q must be at most ${MAX_RUN_SEARCH_LENGTH} characters (a part of a run's input or id); got ${value.length}`,
    );
  }
  return value;
}

function parseLimit(value: string): number {
  const limit = /^[0-9]{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) {
    throw new ToolgateError('usage', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}; got "${value}"`);
  }
  return limit;
}
