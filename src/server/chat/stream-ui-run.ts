import { ToolgateError } from '../../core/errors.ts';
import type { RunEvent } from '../../core/events.ts';
import type { RequestContext } from '../server-context.ts';
import { followRun } from './follow-run.ts';
import type { UiFinishReason } from './ui-chunks.ts';
import { UiStreamMapper } from './ui-stream.ts';
import { framesOf, frameWithoutId, UiSseWriter, type ResumePoint } from './ui-sse-writer.ts';

export interface UiRunStreamOptions {
  runId: string;
  /** What the client already has: its chunks are not sent again. */
  from: ResumePoint;
  /** Sent first as the `start` chunk's messageId; absent for a stream that resumes one that had its `start`. */
  messageId?: string;
}

/**
 * Answers with a run's UI message stream: its events from the first (those before `from` only feed the mapper),
 * history then live, until the run ends — or until it waits for a person, where the stream ends with the approval
 * request (finish reason `tool-calls`) and the decision, posted with the chat's messages, continues it. A shutdown
 * cuts the connection, so that the AI SDK resumes the stream rather than take it as complete.
 */
export async function streamUiRun(ctx: RequestContext, options: UiRunStreamOptions): Promise<void> {
  const { state } = ctx;
  if (state.closing) {
    throw new ToolgateError('shutting_down', 'the server is shutting down; resume the stream in a moment');
  }
  const writer = new UiSseWriter({
    res: ctx.res,
    heartbeatMs: state.heartbeatMs,
    idleTimeoutMs: state.sseIdleTimeoutMs,
  });
  const stop = new AbortController();
  let shutdown = false;
  let complete = false;
  const stream = {
    close: (): void => {
      shutdown = true;
      stop.abort();
    },
  };
  const onClose = (): void => stop.abort();
  ctx.res.once('close', onClose);
  state.streams.add(stream);
  const mapper = new UiStreamMapper();
  try {
    // Set rather than passed to writeHead: the request's log line reads the run from it.
    ctx.res.setHeader('X-Toolgate-Run-Id', options.runId);
    writer.open();
    if (options.messageId !== undefined)
      await writer.write(frameWithoutId({ type: 'start', messageId: options.messageId }));
    const events = followRun(state.store, { runId: options.runId, signal: stop.signal, pollMs: state.ssePollMs });
    for await (const event of events) {
      const chunks = mapper.push(event);
      const waits = await waitsAt(ctx, event);
      if (waits !== undefined) chunks.push(...mapper.pause(waits));
      if (!(await writer.write(framesOf(event.id, chunks, options.from)))) break;
      if (waits !== undefined) break;
    }
    complete = !shutdown;
  } finally {
    ctx.res.off('close', onClose);
    state.streams.delete(stream);
    if (complete) writer.end();
    else writer.cut();
  }
}

/**
 * Whether the run waits for a person at this event, now: the approval it is waiting on (its pendingApproval points at
 * this very event), or an escalation. A wait that is already over is streamed through (a replay shows the decision).
 */
async function waitsAt(
  ctx: RequestContext,
  event: RunEvent,
): Promise<Extract<UiFinishReason, 'tool-calls' | 'other'> | undefined> {
  const approval = event.type === 'approval_required';
  const escalation = event.type === 'run_status' && event.data.to === 'escalated';
  if (!approval && !escalation) return undefined;
  const run = await ctx.state.service.getRun(ctx.caller, event.runId);
  if (approval) {
    return run?.status === 'waiting_approval' && run.pendingApproval?.eventId === event.id ? 'tool-calls' : undefined;
  }
  return run?.status === 'escalated' ? 'other' : undefined;
}
