import { ToolgateError } from '../../core/errors.ts';
import { readJsonBody } from '../body.ts';
import { checkedHeader } from '../checked-header.ts';
import { httpStatusFor } from '../http-status.ts';
import { HttpError, sendJsonResponse } from '../respond.ts';
import type { Closable, RequestContext } from '../server-context.ts';
import type { AnswerEnd, ChatAnswer } from '../chat/chat-answer.ts';
import { ChunkStream } from '../chat/chunk-stream.ts';
import { followAnswer } from '../chat/follow-answer.ts';
import { findHeldRun } from '../chat/held-run.ts';
import {
  chunkObject,
  completionObject,
  deltaObject,
  finalChunk,
  usageChunk,
  type AnswerIdentity,
} from '../chat/openai-answer.ts';
import { openAiErrorBody } from '../chat/openai-error.ts';
import { parseChatRequest, type ChatRequest } from '../chat/openai-request.ts';

export const RUN_ID_HEADER = 'X-Toolgate-Run-Id';
const THREAD_HEADER = {
  name: 'x-toolgate-thread-id',
  pattern: /^[\x20-\x7e]{1,255}$/,
  problem: 'X-Toolgate-Thread-Id must be 1 to 255 printable ASCII characters',
};

/**
 * POST /v1/chat/completions: OpenAI's chat completions over a toolgate run.
 * The conversation becomes the run's history, the request's `tools` its
 * client tools; the run's tools (the tenant's) run inside, through the gate.
 * A conversation whose last assistant message is this route's hold message
 * continues that run instead of starting one (see findHeldRun). Errors are in
 * OpenAI's shape (the route's errorShape); the run is named by X-Toolgate-Run-Id.
 */
export async function chatCompletions(ctx: RequestContext): Promise<void> {
  // Query parameters are not read: some clients add their own (api-version).
  const threadHeader = checkedHeader(ctx.req.headers, THREAD_HEADER);
  const request = parseChatRequest(await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes }), {
    threadHeader,
  });
  const { service, store, chat } = ctx.state;
  const held = await findHeldRun({
    service,
    store,
    caller: ctx.caller,
    message: request.lastAssistant,
    template: chat.approvalMessage,
  });
  let who: AnswerIdentity;
  let after = 0;
  if (held !== undefined) {
    who = { runId: held.run.id, model: held.run.model, created: nowSeconds() };
    // From the approval itself: still pending, it is answered with the hold message again.
    after = held.approval.id - 1;
  } else {
    const { run } = await service.startRun(ctx.caller, {
      input: request.input,
      history: request.history,
      clientTools: request.clientTools,
      model: request.model,
      metadata: request.metadata,
      ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
    });
    who = { runId: run.id, model: run.model, created: nowSeconds() };
  }
  ctx.res.setHeader(RUN_ID_HEADER, who.runId);
  if (request.stream) await streamAnswer(ctx, { who, after, request });
  else await plainAnswer(ctx, { who, after, request });
}

interface AnswerInput {
  who: AnswerIdentity;
  after: number;
  request: ChatRequest;
}

async function plainAnswer(ctx: RequestContext, input: AnswerInput): Promise<void> {
  const { answer, closing } = await follow(ctx, input, undefined);
  const end = answer.end;
  if (end === undefined) {
    if (closing)
      throw new ToolgateError('shutting_down', `the server is shutting down; run ${input.who.runId} goes on`);
    return;
  }
  if (end.kind === 'failed' || end.kind === 'cancelled') throw runError(input.who.runId, end);
  sendJsonResponse(ctx.res, { status: 200, body: completionObject(input.who, answer), headers: {} });
}

async function streamAnswer(ctx: RequestContext, input: AnswerInput): Promise<void> {
  const { who } = input;
  const stream = new ChunkStream({ res: ctx.res, heartbeatMs: ctx.state.heartbeatMs });
  stream.open({ [RUN_ID_HEADER]: who.runId });
  await stream.send(chunkObject(who, { delta: { role: 'assistant', content: '' } }));
  let toolCalls = 0;
  const { answer, closing } = await follow(ctx, input, async (deltas) => {
    for (const delta of deltas) {
      await stream.send(chunkObject(who, { delta: deltaObject(delta, toolCalls) }));
      toolCalls += delta.toolCalls?.length ?? 0;
    }
  });
  const end = answer.end;
  if (end === undefined) {
    if (closing) {
      const error = { code: 'shutting_down', message: `the server is shutting down; run ${who.runId} goes on` };
      await stream.send(openAiErrorBody(error, httpStatusFor('shutting_down')));
    }
    stream.end();
    return;
  }
  if (end.kind === 'failed' || end.kind === 'cancelled') {
    // What OpenAI does when a stream fails once it has begun: an error object as the last event.
    const error = runError(who.runId, end);
    await stream.send(openAiErrorBody(error, error.status));
    stream.end();
    return;
  }
  await stream.send(finalChunk(who, end));
  if (input.request.includeUsage) await stream.send(usageChunk(who, answer.usage));
  await stream.done();
}

/** Follows the run until its answer; stops when the client goes away or the server shuts down. */
async function follow(
  ctx: RequestContext,
  input: AnswerInput,
  onDelta: Parameters<typeof followAnswer>[0]['onDelta'],
): Promise<{ answer: ChatAnswer; closing: boolean }> {
  const stop = new AbortController();
  let closing = false;
  const closable: Closable = {
    close: () => {
      closing = true;
      stop.abort();
    },
  };
  const onClose = (): void => stop.abort();
  ctx.res.once('close', onClose);
  ctx.state.streams.add(closable);
  try {
    const answer = await followAnswer({
      service: ctx.state.service,
      store: ctx.state.store,
      caller: ctx.caller,
      runId: input.who.runId,
      after: input.after,
      pollMs: ctx.state.ssePollMs,
      wait: input.request.wait,
      approvalMessage: ctx.state.chat.approvalMessage,
      approvalTimeoutMs: ctx.state.chat.approvalTimeoutMs,
      signal: stop.signal,
      ...(onDelta === undefined ? {} : { onDelta }),
    });
    return { answer, closing };
  } finally {
    ctx.state.streams.delete(closable);
    ctx.res.off('close', onClose);
  }
}

/**
 * A failed run's error with the status of its code; a cancelled run is a 409. The run has run: a retry would be a
 * new run, doing its server-side writes again, so the SDKs that read `x-should-retry` (OpenAI's) are told not to.
 */
function runError(runId: string, end: Extract<AnswerEnd, { kind: 'failed' | 'cancelled' }>): HttpError {
  const headers = { 'x-should-retry': 'false' };
  if (end.kind === 'cancelled') {
    return new HttpError({
      status: 409,
      code: 'cancelled',
      message: `run ${runId} was cancelled: ${end.reason}`,
      headers,
    });
  }
  return new HttpError({
    status: httpStatusFor(end.error.code),
    code: end.error.code,
    message: `run ${runId} failed: ${end.error.message}`,
    headers,
  });
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
