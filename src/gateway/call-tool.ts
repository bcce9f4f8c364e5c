import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type InputRequiredResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isJsonObject, isRecord, type JsonObject, type ToolResult } from '../core/index.ts';
import { mayDecide, type DecideAuthority } from '../gate/index.ts';
import type { GatewayCallResult, GatewayDone } from './gateway-call.ts';
import { APPROVAL_INPUT_KEY, approvalForm, readApprovalAnswer, type HeldCall } from './approval-form.ts';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import { RequestStateCodec } from './request-state.ts';
import { progressRelay } from './progress-relay.ts';

/** How often a client waiting on a held call (no elicitation) is sent progress, so its request does not time out. */
const PROGRESS_EVERY_MS = 10_000;
/** `_meta` keys of a gateway result: which run and call it was recorded as. */
export const RUN_ID_META_KEY = 'toolgate/runId';
export const TOOL_CALL_ID_META_KEY = 'toolgate/toolCallId';

export interface CallToolInput {
  gateway: Gateway;
  server: Server;
  session: GatewaySession;
  name: string;
  arguments: JsonObject;
  ctx: ServerContext;
  /** Ends the call instead of the request's signal: a call that outlives its request (exchanged-call-tool.ts). */
  signal?: AbortSignal | undefined;
}

/**
 * One `tools/call` through the gate. A call held for approval is asked of the
 * client's user through elicitation when the client supports it (an
 * `input_required` result on 2026-07-28; the SDK turns it into
 * `elicitation/create` for 2025-era clients), else it waits for a decision
 * over the runs API or the console, up to `gateway.approvalTimeoutMs`.
 */
export async function callTool(input: CallToolInput): Promise<CallToolResult | InputRequiredResult> {
  const { gateway, session, ctx } = input;
  const state = ctx.mcpReq.requestState<string>();
  if (typeof state === 'string') return answerApproval(input, state);
  const { catalog, run } = await gateway.catalog(session);
  const limiter = gateway.options.rateLimiter;
  // W3C trace context in `_meta` (MCP's tracing convention); a 2026-07-28 request may carry it in its envelope.
  const envelope = ctx.mcpReq.envelope;
  const traceparent = ctx.mcpReq._meta?.['traceparent'] ?? (isRecord(envelope) ? envelope['traceparent'] : undefined);
  const progress = progressRelay(ctx);
  const outcome: GatewayCallResult = await run.call({
    catalog,
    name: input.name,
    arguments: input.arguments,
    signal: input.signal ?? ctx.mcpReq.signal,
    ...(progress === undefined ? {} : { onProgress: progress.send }),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    ...(limiter === undefined
      ? {}
      : {
          refuse: async (entry) => {
            const message = await limiter.take(session.identity, {
              name: entry.tool.name,
              server: entry.tool.origin.server,
              tool: entry.tool.origin.tool,
            });
            return message === undefined ? undefined : { code: 'rate_limited' as const, message };
          },
        }),
  });
  await progress?.flushed();
  if (outcome.kind === 'done') return toMcp(run.runId, outcome);
  const held: HeldCall = {
    toolCallId: outcome.toolCallId,
    name: outcome.name,
    arguments: outcome.arguments,
    effect: outcome.effect,
    reason: outcome.reason,
    runId: run.runId,
  };
  // A user whose roles may not decide this tool's approvals (tenants.<id>.approvers) is not asked: the call waits for
  // an approver (runs API, console, a decision link) as it does for a client that cannot elicit.
  if (gateway.elicitation && canElicit(input.server, ctx) && (await sessionMayDecide(input)).allowed)
    return askApproval(input, held);
  // The client gave up on this request (cancelled it, or went away): nobody would get the result, so the call is not
  // run.
  const onAbort = (): void =>
    run.cancelHeld(held.toolCallId, 'the client cancelled the request while the call waited for approval');
  const signal = input.signal ?? ctx.mcpReq.signal;
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return toMcp(run.runId, await waitWithProgress(ctx, held, outcome.outcome));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function askApproval(input: CallToolInput, held: HeldCall, problem?: string): InputRequiredResult {
  const form = approvalForm(held, problem);
  const request = RequestStateCodec.requestHash(input.name, input.arguments);
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT_KEY]: inputRequired.elicit({
        mode: 'form',
        message: form.message,
        requestedSchema: form.requestedSchema,
      }),
    },
    requestState: input.gateway.codec.encode({ runId: held.runId, toolCallId: held.toolCallId, request }),
  });
}

/** The client came back with its user's answer: record it as the decision and return what the call then did. */
async function answerApproval(input: CallToolInput, state: string): Promise<CallToolResult | InputRequiredResult> {
  const { gateway, session, ctx } = input;
  const ref = gateway.codec.decode(state);
  if (ref === undefined)
    return refusal(
      'the state sent back (of an approval, or of a server question answered through input_required) is not one ' +
        'this gateway issued (it is signed; another gateway process may have issued it): call the tool again',
    );
  const run = session.run;
  if (
    run === undefined ||
    run.runId !== ref.runId ||
    ref.request !== RequestStateCodec.requestHash(input.name, input.arguments)
  ) {
    return refusal('this approval belongs to another session or another call; call the tool again');
  }
  const outcome = run.heldOutcome(ref.toolCallId);
  if (outcome === undefined)
    return refusal(`the approval of ${input.name} (${ref.toolCallId}) is no longer pending; call the tool again`);
  const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
  const authority = answer.kind === 'elicit' ? await sessionMayDecide(input) : undefined;
  if (answer.kind !== 'elicit' || authority?.allowed !== true) {
    // No answer (e.g. the client dropped it), or one from a user whose roles may not decide this tool's approvals
    // (tenants.<id>.approvers): the call stays held for the runs API until its timeout.
    return toMcp(
      run.runId,
      await waitWithProgress(
        ctx,
        {
          toolCallId: ref.toolCallId,
          name: input.name,
          arguments: {},
          effect: 'write',
          reason: 'policy',
          runId: run.runId,
        },
        outcome,
      ),
    );
  }
  const read = readApprovalAnswer(answer, { toolCallId: ref.toolCallId, userId: session.identity.userId });
  if (read.kind === 'invalid') {
    const pending = await gateway.options.store.getRun(run.runId);
    const shown = pending?.pendingApproval?.toolCallId === ref.toolCallId ? pending.pendingApproval : undefined;
    if (shown !== undefined) {
      return askApproval(
        input,
        {
          toolCallId: ref.toolCallId,
          name: shown.name,
          arguments: shown.arguments,
          effect: shown.effect,
          reason: shown.reason,
          runId: run.runId,
        },
        read.problem,
      );
    }
  } else {
    // The deciding user's roles are recorded when a rule asked for them.
    const roles = authority?.rule === undefined ? {} : { roles: [...(session.identity.roles ?? [])] };
    await run.decide({ ...read.input, source: { via: 'elicitation', ...roles } });
  }
  return toMcp(run.runId, await outcome);
}

/** Whether the session's caller may decide approvals of the called tool (mayDecide with the session's roles). */
async function sessionMayDecide(input: CallToolInput): Promise<DecideAuthority> {
  const { catalog } = await input.gateway.catalog(input.session);
  const entry = catalog.visible.get(input.name) ?? catalog.denied.get(input.name)?.entry;
  if (entry === undefined) return { allowed: false, reason: `${input.name} is no longer a tool of this gateway` };
  const { tenantId, roles } = input.session.identity;
  return mayDecide(input.gateway.options.environment.policy, { tenantId, roles, tool: entry.tool });
}

/** Waits for the held call's outcome, telling a client that asked for progress that it still waits. */
async function waitWithProgress(
  ctx: ServerContext,
  held: HeldCall,
  outcome: Promise<GatewayDone>,
): Promise<GatewayDone> {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return outcome;
  let beats = 0;
  const send = (): void => {
    beats += 1;
    const message =
      `${held.name} waits for approval (run ${held.runId}, call ` +
      `${held.toolCallId}): decide over the runs API or the console`;
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress: beats, message } })
      .catch(() => undefined);
  };
  send();
  const timer = setInterval(send, PROGRESS_EVERY_MS);
  try {
    return await outcome;
  } finally {
    clearInterval(timer);
  }
}

/** Whether the client can answer an elicitation (form mode): per request on 2026-07-28, from `initialize` before. */
function canElicit(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope;
  const declared =
    (isRecord(envelope) ? envelope[CLIENT_CAPABILITIES_META_KEY] : undefined) ?? server.getClientCapabilities();
  if (!isJsonObject(declared)) return false;
  const elicitation = declared['elicitation'];
  if (!isJsonObject(elicitation)) return false;
  // `{}` means form mode (the 2025-06-18 shape); with modes listed, form must be one of them.
  return Object.keys(elicitation).length === 0 || isJsonObject(elicitation['form']);
}

function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `toolgate: ${message}` }], isError: true };
}

/** A recorded result as MCP sends it, cut to the gateway's size limit, naming the run and call it was recorded as. */
function toMcp(runId: string, done: { toolCallId: string; result: ToolResult }): CallToolResult {
  const result = done.result;
  const out: CallToolResult = {
    // The blocks as recorded (MCP's shapes; toolgate's type leaves a resource link's name optional): sent on unchanged.
    content: result.content as CallToolResult['content'],
    ...(result.ok ? {} : { isError: true }),
    _meta: { [RUN_ID_META_KEY]: runId, [TOOL_CALL_ID_META_KEY]: done.toolCallId },
  };
  if (result.structuredContent !== undefined && isJsonObject(result.structuredContent))
    out.structuredContent = result.structuredContent;
  return out;
}
