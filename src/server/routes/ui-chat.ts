import { ToolgateError } from '../../core/errors.ts';
import { TERMINAL_RUN_STATUSES } from '../../core/runs.ts';
import type { StartRunRequest } from '../../core/ports/run-service.ts';
import { checkTraceparent } from '../../orchestrator/call/tracing.ts';
import { readJsonBody } from '../body.ts';
import { readQuery } from '../query.ts';
import type { RequestContext } from '../server-context.ts';
import { streamUiRun } from '../chat/stream-ui-run.ts';
import { decideApprovals } from '../chat/ui-approvals.ts';
import { MAX_CHAT_ID_LENGTH, parseUiChatBody } from '../chat/ui-request.ts';
import { parseResumePoint } from '../chat/ui-sse-writer.ts';

/**
 * POST /v1/ui/chat: the AI SDK's chat transport (useChat with DefaultChatTransport). A question starts a run on the
 * chat's thread (the chat id is the run's threadId, the messages before the question its history) and answers with
 * its UI message stream; the assistant message's id is the run's id. An assistant message answering approval requests
 * submits the decisions and continues the same run's stream, on the same message. Errors before the stream are
 * toolgate's JSON errors.
 */
export async function postUiChat(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const request = parseUiChatBody(await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes }));
  const { service, store } = ctx.state;
  if (request.kind === 'decide') {
    const scope = { service, store, caller: ctx.caller, chatId: request.chatId };
    const decided = await decideApprovals(scope, request.approvals);
    await streamUiRun(ctx, {
      runId: decided.runId,
      from: { eventId: decided.after, chunks: Number.POSITIVE_INFINITY },
      messageId: request.messageId,
    });
    return;
  }
  const start: StartRunRequest = {
    input: request.input,
    threadId: request.chatId,
    history: request.history,
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  };
  const header = ctx.req.headers['traceparent'];
  const traceparent = typeof header === 'string' ? checkTraceparent(header.trim().toLowerCase()) : undefined;
  if (traceparent !== undefined) start.traceparent = traceparent;
  const { run } = await service.startRun(ctx.caller, start);
  await streamUiRun(ctx, { runId: run.id, from: { eventId: 0, chunks: 0 }, messageId: run.id });
}

/**
 * GET /v1/ui/chat/{chatId}/stream: the stream of the chat's newest run while it is not over (running, or waiting
 * for a decision), replayed from its start as the AI SDK's DefaultChatTransport expects (`resumeStreamIsReplay`);
 * with Last-Event-ID (or `?after=`) only what follows that chunk. 204 when there is nothing to resume.
 */
export async function getUiChatStream(ctx: RequestContext): Promise<void> {
  const query = readQuery(ctx.url, ['after']);
  const chatId = ctx.params['chatId'] ?? '';
  if (chatId.length > MAX_CHAT_ID_LENGTH) {
    throw new ToolgateError('usage', `the chat id must be 1 to ${MAX_CHAT_ID_LENGTH} characters, got ${chatId.length}`);
  }
  const from = parseResumePoint(ctx.req.headers['last-event-id'], query.after);
  const resuming = from.eventId > 0;
  const run = (await ctx.state.service.listRuns(ctx.caller, { threadId: chatId, limit: 1 })).runs[0];
  // A run that is over has something left only for a client that was cut off inside its log.
  const left =
    resuming &&
    (from.eventId < (run?.lastEventId ?? 0) || (from.eventId === run?.lastEventId && Number.isFinite(from.chunks)));
  if (run === undefined || (TERMINAL_RUN_STATUSES.has(run.status) && !left)) {
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
    return;
  }
  await streamUiRun(ctx, { runId: run.id, from, ...(resuming ? {} : { messageId: run.id }) });
}
