import {
  describeError,
  draft,
  toolError,
  type JsonObject,
  type ParsedToolCall,
  type ToolErrorCode,
  type ToolResult,
} from '../../core/index.ts';
import { approvalView, decideCall, redactArguments, type Decision, type ToolEffect } from '../../gate/index.ts';
import { HOLD_BACK, auditEvent, recordResult, type AuditedDecision, type CallRef } from './call-events.ts';
import { gatherFacts } from './gather-facts.ts';
import type { ToolCallContext } from './tool-call-context.ts';
import { DEFAULT_TOOL_TIMEOUT_MS, type BeforeToolCallVerdict, type HookToolCall } from '../state/run-options.ts';
import type { ApprovalDecision } from '../state/run-state.ts';
import { startToolSpan, type ToolTrace } from './tracing.ts';

export { previewToolCall, shownArguments, type CallPreview } from './gather-facts.ts';
export { injectionContext, type ToolCallContext } from './tool-call-context.ts';

/** The `_meta` key MCP servers can use to deduplicate a retried call. */
export const IDEMPOTENCY_META_KEY = 'toolgate/idempotency-key';

/**
 * Records a result for a call that is not sent to its tool (a plan step skipped or rejected): the conversation stays
 * whole.
 */
export async function recordUnsent(
  ctx: ToolCallContext,
  call: CallRef,
  error: { code: Extract<ToolErrorCode, 'skipped' | 'rejected'>; message: string },
): Promise<void> {
  await recordResult(ctx, call, { result: toolError(error.code, error.message) });
}

export type CallOutcome =
  | { kind: 'done'; result: ToolResult; returnDirect: boolean }
  /**
   * Waits for a person: the caller records approval_required and pauses the run. `arguments`: as the person is shown
   * them.
   */
  | { kind: 'pending'; effect: ToolEffect; arguments: JsonObject; reason: 'policy' | 'untrusted_output' }
  /**
   * A write was sent and no answer came (timeout, abort, lost connection): it
   * may have happened. No result is recorded — the log shows the call in
   * flight, exactly as after a crash — and a person decides (`arguments`: as they are shown them).
   */
  | { kind: 'unknown'; effect: 'write'; arguments: JsonObject; detail: string }
  /**
   * A tool the caller runs itself: validated and normalised, its decision recorded, handed back with these
   * arguments — never executed, no result recorded.
   */
  | { kind: 'client'; arguments: JsonObject };

type AllowedDecision = Extract<Decision, { kind: 'allowed' }>;

/** One call being handled: its span, and when its handling began (its result's latency counts from there). */
type CallScope = ToolCallContext & { toolTrace: ToolTrace; started: number };

/**
 * The one path from a model's tool call to a tool:
 * gather what is known (catalog, arguments parsed once → normalise → inject →
 * validate, a person's decision, the tenant) → decideCall → beforeToolCall,
 * only for a call that would run → decideCall again → act on the one
 * Decision: record it and execute, answer or pause. Every call ends in
 * exactly one tool_result (or pending approval); a `tool_call` event is
 * committed before a tool that may change anything is reached (a read's goes
 * with its result: decision 0014). Nothing here throws for bad input: the model gets the reason.
 */
export async function executeToolCall(
  ctx: ToolCallContext,
  call: ParsedToolCall,
  approval?: ApprovalDecision,
): Promise<CallOutcome> {
  const span = startToolSpan(ctx.trace, call, ctx.step);
  const outcome = await gateAndAct({ ...ctx, toolTrace: span, started: performance.now() }, call, approval);
  span.end(spanResult(outcome));
  return outcome;
}

/** What the call's span ends with. */
function spanResult(outcome: CallOutcome): { ok: boolean; error?: { code: string; message: string } } {
  switch (outcome.kind) {
    case 'done':
      return outcome.result;
    case 'client':
      return { ok: true };
    case 'pending':
      return { ok: false, error: { code: 'approval_required', message: 'waits for a person' } };
    case 'unknown':
      return { ok: false, error: { code: 'outcome_unknown', message: outcome.detail } };
  }
}

async function gateAndAct(
  ctx: CallScope,
  call: ParsedToolCall,
  approval: ApprovalDecision | undefined,
): Promise<CallOutcome> {
  let decision: Decision;
  try {
    decision = await gateCall(ctx, call, approval);
  } catch (error) {
    // Nothing was sent yet: whatever went wrong (a pathological value, a bug)
    // fails this call alone, recorded, and the model is told.
    const message = `toolgate could not process this call to ${call.name}: ${describeError(error)}`;
    return done(
      await recordResult(ctx, call, { result: toolError('invalid_arguments', message), started: ctx.started }),
    );
  }
  ctx.toolTrace.decided(decision.kind, 'policy' in decision ? decision.policy.effect : 'unknown');
  return act(ctx, call, decision);
}

/**
 * Decides without the hook first; only a call that would run (allowed or dry
 * run) reaches beforeToolCall, once, with the arguments it would run with —
 * for a call that needed a person, those they approved or edited — and is
 * decided again with its verdict.
 */
async function gateCall(
  ctx: ToolCallContext,
  call: ParsedToolCall,
  approval: ApprovalDecision | undefined,
): Promise<Decision> {
  const facts = gatherFacts(ctx, call, approval);
  const first = decideCall(facts);
  if (ctx.hooks?.beforeToolCall === undefined || (first.kind !== 'allowed' && first.kind !== 'dry_run')) return first;
  const verdict = await runBeforeHook(ctx, hookCall(ctx, call, first));
  if (verdict.action !== 'rewrite') return decideCall({ ...facts, hook: verdict });
  const checked = ctx.validator.validate(first.tool.inputSchema, verdict.arguments);
  return decideCall({ ...facts, hook: { ...verdict, issues: checked.ok ? [] : checked.issues } });
}

/** The one place a Decision becomes events — and, when allowed, a call to the tool. */
async function act(ctx: CallScope, call: ParsedToolCall, decision: Decision): Promise<CallOutcome> {
  const { started } = ctx;
  switch (decision.kind) {
    // A call that runs nothing has a result the log gives again after a crash (a person's decision, the gate's):
    // it is held back and committed with what follows, like a read's.
    case 'marked_done':
      return done(await recordResult(ctx, call, { result: decision.result, started, markedDone: true, hold: true }));
    case 'not_found':
      return done(
        await recordResult(ctx, call, {
          result: toolError(decision.error.code, decision.error.message),
          started,
          hold: true,
        }),
      );
    case 'denied':
    case 'invalid':
      return done(
        await recordResult(ctx, call, {
          result: toolError(decision.error.code, decision.error.message),
          started,
          before: [auditEvent(ctx, call, decision)],
          hold: true,
        }),
      );
    case 'approval_required':
      // Recorded alone: the caller appends approval_required and pauses the run.
      await ctx.append([auditEvent(ctx, call, decision)]);
      return {
        kind: 'pending',
        effect: decision.policy.effect,
        arguments: shown(ctx, decision),
        reason: decision.approvalReason,
      };
    case 'dry_run': {
      const args = ctx.redact(decision.arguments);
      const text =
        `DRY RUN: ${call.name} was validated and would have run with ` +
        `these arguments, but was not executed: ${JSON.stringify(args)}`;
      const result: ToolResult = {
        ok: true,
        content: [{ type: 'text', text }],
        structuredContent: { dryRun: true, tool: call.name, arguments: args },
      };
      return done(
        await recordResult(ctx, call, {
          result,
          started,
          before: [auditEvent(ctx, call, decision)],
          dryRun: true,
          hold: true,
        }),
      );
    }
    case 'allowed':
      if (ctx.catalog.visible.get(call.name)?.client === true) {
        await ctx.append([auditEvent(ctx, call, decision)], undefined, HOLD_BACK);
        return { kind: 'client', arguments: decision.arguments };
      }
      return execute(ctx, call, decision);
  }
}

/** Commits the decision and the call, then reaches the tool and records what came back. */
async function execute(ctx: CallScope, call: ParsedToolCall, decision: AllowedDecision): Promise<CallOutcome> {
  const { tool, policy, arguments: args } = decision;
  // The decision and the call are committed together, before a tool that may change
  // something is reached. A read may be repeated after a crash, so its call goes with its
  // result (one transaction for the step), or on its own if the read is still running
  // after READ_COMMIT_DELAY_MS (see RunWriter).
  await ctx.append(
    [
      auditEvent(ctx, call, decision),
      draft('tool_call', {
        step: ctx.step,
        toolCallId: call.id,
        name: call.name,
        arguments: redactArguments(args, ctx.redact),
        origin: tool.origin,
      }),
    ],
    undefined,
    policy.effect === 'read' ? HOLD_BACK : undefined,
  );
  let result: ToolResult;
  let threw = false;
  try {
    result = await reach(ctx, call, decision);
  } catch (error) {
    // ToolSources promise not to throw; one that does still must not end the run.
    threw = true;
    result = toolError('tool_error', `tool "${call.name}" failed: ${describeError(error)}`);
  }
  if (policy.effect === 'write' && outcomeUnknown(result, threw)) {
    const detail = result.error?.message ?? 'no answer came';
    const cancelled = ctx.signal?.aborted === true;
    if (!cancelled && policy.unknownOutcome === 'ask')
      return { kind: 'unknown', effect: 'write', arguments: shown(ctx, decision), detail };
    // A cancelled run ends here, so the log says what became of the call; `tell_model` hands the doubt to the model.
    const message = cancelled
      ? `the run was cancelled while ${call.name} was in flight (${detail}); it may or may not have happened`
      : `${call.name} was sent but no answer came (${detail}). It MAY HAVE ` +
        `EXECUTED: do not call it again; tell the user to check whether it happened.`;
    return done(await recordResult(ctx, call, { result: toolError('outcome_unknown', message), started: ctx.started }));
  }
  if (ctx.hooks?.afterToolCall !== undefined) {
    try {
      const replaced = await ctx.hooks.afterToolCall({ ...hookCall(ctx, call, decision), result });
      if (replaced !== undefined) result = replaced;
    } catch (error) {
      process.emitWarning(`afterToolCall hook failed for ${call.name}: ${describeError(error)}`);
    }
  }
  // A read's result is held back with its call: the whole step is committed while the model is asked again.
  const untrusted = policy.untrusted && result.notSent !== true;
  const final = await recordResult(ctx, call, {
    result,
    started: ctx.started,
    ...(untrusted ? { untrusted: true } : {}),
    hold: policy.effect === 'read',
  });
  return { kind: 'done', result: final, returnDirect: policy.returnDirect && result.ok };
}

/**
 * The tool itself: toolgate's own (a built-in) or the run's tool source, with the call's timeout, idempotency key and
 * trace context.
 */
function reach(ctx: CallScope, call: ParsedToolCall, decision: AllowedDecision): Promise<ToolResult> {
  const { tool, policy, arguments: args } = decision;
  if (tool.origin.kind === 'builtin' && ctx.builtin !== undefined)
    return ctx.builtin({ name: call.name, arguments: args, toolCallId: call.id });
  // The W3C trace context travels to the MCP server in `_meta`, as MCP's tracing proposal does.
  const traceparent = ctx.toolTrace.traceparent;
  return ctx.tools.callTool({
    name: call.name,
    arguments: args,
    timeoutMs: policy.timeoutMs ?? tool.timeoutMs ?? ctx.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    meta: { [IDEMPOTENCY_META_KEY]: `${ctx.runId}:${call.id}`, ...(traceparent === undefined ? {} : { traceparent }) },
    invocation: {
      runId: ctx.runId,
      toolCallId: call.id,
      ...(ctx.tenantId === undefined ? {} : { tenantId: ctx.tenantId }),
      ...(ctx.userId === undefined ? {} : { userId: ctx.userId }),
      ...(ctx.context === undefined ? {} : { context: ctx.context }),
    },
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...(ctx.onProgress === undefined ? {} : { onProgress: ctx.onProgress }),
  });
}

/**
 * Whether a failed call may still have happened. Only a source that says the
 * request never left (`notSent`) or a definite answer from the tool rules it
 * out; a timeout, an abort, a lost connection or a source that threw do not.
 */
export function outcomeUnknown(result: ToolResult, threw: boolean): boolean {
  if (result.ok || result.notSent === true) return false;
  if (threw) return true;
  const code = result.error?.code;
  return code === 'tool_timeout' || code === 'tool_unavailable' || code === 'cancelled';
}

function done(result: ToolResult): CallOutcome {
  return { kind: 'done', result, returnDirect: false };
}

/** The arguments a call waiting for a person would run with, as they are shown them. */
function shown(
  ctx: ToolCallContext,
  decision: Extract<Decision, { kind: 'allowed' | 'approval_required' }>,
): JsonObject {
  return approvalView({ tool: decision.tool, inject: decision.policy.inject }).shown(decision.arguments, ctx.redact);
}

function hookCall(
  ctx: ToolCallContext,
  call: ParsedToolCall,
  decision: Extract<AuditedDecision, { kind: 'allowed' | 'dry_run' }>,
): HookToolCall {
  return {
    runId: ctx.runId,
    toolCallId: call.id,
    name: call.name,
    tool: decision.tool,
    effect: decision.policy.effect,
    arguments: structuredClone(decision.arguments),
    ...(ctx.tenantId === undefined ? {} : { tenantId: ctx.tenantId }),
    ...(ctx.userId === undefined ? {} : { userId: ctx.userId }),
    ...(ctx.context === undefined ? {} : { context: ctx.context }),
  };
}

async function runBeforeHook(ctx: ToolCallContext, call: HookToolCall): Promise<BeforeToolCallVerdict> {
  try {
    return (await ctx.hooks?.beforeToolCall?.(call)) ?? { action: 'allow' };
  } catch (error) {
    return { action: 'deny', reason: `the beforeToolCall check failed: ${describeError(error)}` };
  }
}
