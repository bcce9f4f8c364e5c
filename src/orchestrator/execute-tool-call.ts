import { draft, toolError, type EventDraft, type GateDecisionKind, type JsonObject, type JsonValue, type Provenance, type RawToolCall, type ToolResult, type ToolSource } from '../core/index.ts';
import { decideCall, isToolAllowed, EMPTY_POLICY, type CallFacts, type Decision, type Policy, type ToolEffect } from '../gate/index.ts';
import type { Validator } from '../validation/index.ts';
import { HOLD_BACK, auditEvent, recordResult, type AuditedDecision } from './call-events.ts';
import type { ApprovalDecision } from './conversation-state.ts';
import { prepareCall } from './prepare-call.ts';
import { DEFAULT_TOOL_TIMEOUT_MS, type HookToolCall, type RunHooks } from './run-options.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { startToolSpan, type PassTrace, type ToolTrace } from './tracing.ts';
import type { AppendOptions } from './transition.ts';

/** The `_meta` key MCP servers can use to deduplicate a retried call. */
export const IDEMPOTENCY_META_KEY = 'toolgate/idempotency-key';

export interface ToolCallContext {
  runId: string;
  step: number;
  /** Appends to the run's log (and keeps the loop's view of it current); `options` may defer a read's call (see AppendOptions). */
  append: (drafts: EventDraft[], patch?: undefined, options?: AppendOptions) => Promise<unknown>;
  tools: ToolSource;
  catalog: ToolCatalog;
  policy: Policy | undefined;
  validator: Validator;
  redact: (value: JsonValue) => JsonValue;
  dryRun: boolean;
  tenantId?: string | undefined;
  userId?: string | undefined;
  context?: JsonObject | undefined;
  hooks?: RunHooks | undefined;
  signal?: AbortSignal | undefined;
  toolTimeoutMs?: number | undefined;
  truncated?: boolean;
  /** Untrusted tool outputs that entered the run before this call's turn: writes then need a person. */
  untrusted?: readonly Provenance[];
  /** The guard's maxToolLatencyMs: a slower result is recorded `slow`. */
  maxToolLatencyMs?: number | undefined;
  /** The pass's trace: each call gets an `execute_tool` span under it. */
  trace?: PassTrace | undefined;
  /** This call's span (set by executeToolCall). */
  toolTrace?: ToolTrace | undefined;
  /** Runs toolgate's own tools (origin `builtin`, e.g. the todo tools) after the gate let them through. */
  builtin?: ((request: { name: string; arguments: JsonObject; toolCallId: string }) => Promise<ToolResult>) | undefined;
}

/** What the gate would decide for a call, without running it or recording anything (a plan is checked with this). */
export interface CallPreview {
  decision: GateDecisionKind | 'not_found';
  effect?: ToolEffect;
  /** The arguments it would run with (redacted), when they could be prepared. */
  arguments?: JsonObject;
  /** Why it cannot run (invalid, denied, unknown tool). */
  message?: string;
}

/** The gate's verdict on a call, as data: no hook is asked, nothing is executed or recorded. */
export function previewToolCall(ctx: ToolCallContext, call: RawToolCall): CallPreview {
  const decision = decideCall(gatherFacts(ctx, call, undefined));
  switch (decision.kind) {
    case 'allowed':
    case 'dry_run':
    case 'approval_required':
      return { decision: decision.kind, effect: decision.policy.effect, arguments: ctx.redact(decision.arguments) as JsonObject };
    case 'denied':
    case 'invalid':
      return { decision: decision.kind, effect: decision.policy.effect, message: decision.error.message };
    case 'not_found':
      return { decision: 'not_found', message: decision.error.message };
    case 'marked_done':
      return { decision: 'allowed' };
  }
}

/** Records a result for a call that is not sent to its tool (a plan step skipped or rejected): the conversation stays whole. */
export async function recordUnsent(ctx: ToolCallContext, call: RawToolCall, code: 'skipped' | 'rejected', message: string): Promise<void> {
  await recordResult(ctx, call, performance.now(), toolError(code, message));
}

export type CallOutcome =
  | { kind: 'done'; result: ToolResult; returnDirect: boolean }
  /** Waits for a person: the caller records approval_required and pauses the run. */
  | { kind: 'pending'; effect: ToolEffect; arguments: JsonObject; reason: 'policy' | 'untrusted_output' }
  /**
   * A write was sent and no answer came (timeout, abort, lost connection): it
   * may have happened. No result is recorded — the log shows the call in
   * flight, exactly as after a crash — and a person decides.
   */
  | { kind: 'unknown'; effect: 'write'; arguments: JsonObject; detail: string };

type AllowedDecision = Extract<Decision, { kind: 'allowed' }>;

/**
 * The one path from a model's tool call to a tool:
 * gather what is known (catalog, parse → normalise → inject → validate, a
 * person's decision, the tenant) → decideCall → beforeToolCall, only for a
 * call that would run → decideCall again → act on the one Decision: record
 * it and execute, answer or pause. Every call ends in exactly one tool_result
 * (or pending approval); a `tool_call` event is committed before a tool that
 * may change anything is reached (a read's goes with its result: decision 0014).
 * Nothing here throws for bad input: the model gets the reason.
 */
export async function executeToolCall(ctx: ToolCallContext, call: RawToolCall, approval?: ApprovalDecision): Promise<CallOutcome> {
  const span = startToolSpan(ctx.trace, call, ctx.step);
  const outcome = await gateAndAct({ ...ctx, toolTrace: span }, call, approval);
  span.end(outcome.kind === 'done' ? outcome.result : { ok: false, error: { code: outcome.kind === 'pending' ? 'approval_required' : 'outcome_unknown', message: outcome.kind === 'pending' ? 'waits for a person' : outcome.detail } });
  return outcome;
}

async function gateAndAct(ctx: ToolCallContext & { toolTrace: ToolTrace }, call: RawToolCall, approval: ApprovalDecision | undefined): Promise<CallOutcome> {
  const started = performance.now();
  let decision: Decision;
  try {
    decision = await gateCall(ctx, call, approval);
  } catch (error) {
    // Nothing was sent yet: whatever went wrong (a pathological value, a bug)
    // fails this call alone, recorded, and the model is told.
    const message = `toolgate could not process this call to ${call.name}: ${error instanceof Error ? error.message : String(error)}`;
    return done(await recordResult(ctx, call, started, toolError('invalid_arguments', message)));
  }
  ctx.toolTrace.decided(decision.kind, 'policy' in decision ? decision.policy.effect : 'unknown');
  return act(ctx, call, decision, started);
}

/**
 * Decides without the hook first; only a call that would run (allowed or dry
 * run) reaches beforeToolCall, once, with the arguments it would run with —
 * for a call that needed a person, those they approved or edited — and is
 * decided again with its verdict.
 */
async function gateCall(ctx: ToolCallContext, call: RawToolCall, approval: ApprovalDecision | undefined): Promise<Decision> {
  const facts = gatherFacts(ctx, call, approval);
  const first = decideCall(facts);
  if (ctx.hooks?.beforeToolCall === undefined || (first.kind !== 'allowed' && first.kind !== 'dry_run')) return first;
  const verdict = await runBeforeHook(ctx, hookCall(ctx, call, first, first.arguments));
  if (verdict.action !== 'rewrite') return decideCall({ ...facts, hook: verdict });
  const checked = ctx.validator.validate(first.tool.inputSchema, verdict.arguments);
  return decideCall({ ...facts, hook: { ...verdict, issues: checked.ok ? [] : checked.issues } });
}

/** Everything the gate needs to know about the call, as data. */
function gatherFacts(ctx: ToolCallContext, call: RawToolCall, approval: ApprovalDecision | undefined): CallFacts {
  const common = { name: call.name, approval, dryRun: ctx.dryRun, untrusted: ctx.untrusted ?? [] };
  const entry = ctx.catalog.visible.get(call.name);
  if (entry === undefined) {
    const denied = ctx.catalog.denied.get(call.name);
    if (denied !== undefined) {
      return { ...common, lookup: { kind: 'denied', tool: denied.entry.tool, policy: denied.entry.policy, reason: denied.reason }, allowed: { allowed: false, reason: denied.reason } };
    }
    return { ...common, lookup: { kind: 'unknown', known: [...ctx.catalog.visible.keys()] }, allowed: { allowed: false } };
  }
  // A person's edit replaces the model's arguments and goes through the same preparation.
  const source = approval?.decision === 'edit' && approval.arguments !== undefined ? approval.arguments : call.arguments;
  const prepared =
    approval?.decision === 'mark_done' ? undefined : prepareCall({ entry, arguments: source, validator: ctx.validator, injection: injectionContext(ctx), truncated: ctx.truncated === true });
  return {
    ...common,
    lookup: { kind: 'visible', tool: entry.tool, policy: entry.policy },
    prepared,
    allowed: isToolAllowed(ctx.policy ?? EMPTY_POLICY, ctx.tenantId, entry.tool),
  };
}

/** The one place a Decision becomes events — and, when allowed, a call to the tool. */
async function act(ctx: ToolCallContext, call: RawToolCall, decision: Decision, started: number): Promise<CallOutcome> {
  switch (decision.kind) {
    // A call that runs nothing has a result the log gives again after a crash (a person's decision, the gate's):
    // it is held back and committed with what follows, like a read's.
    case 'marked_done':
      return done(await recordResult(ctx, call, started, decision.result, { markedDone: true, hold: true }));
    case 'not_found':
      return done(await recordResult(ctx, call, started, toolError(decision.error.code, decision.error.message), { hold: true }));
    case 'denied':
    case 'invalid':
      return done(await recordResult(ctx, call, started, toolError(decision.error.code, decision.error.message), { before: [auditEvent(ctx, call, decision)], hold: true }));
    case 'approval_required':
      // Recorded alone: the caller appends approval_required and pauses the run.
      await ctx.append([auditEvent(ctx, call, decision)]);
      return { kind: 'pending', effect: decision.policy.effect, arguments: decision.arguments, reason: decision.approvalReason };
    case 'dry_run': {
      const shown = ctx.redact(decision.arguments);
      const text = `DRY RUN: ${call.name} was validated and would have run with these arguments, but was not executed: ${JSON.stringify(shown)}`;
      const result: ToolResult = { ok: true, content: [{ type: 'text', text }], structuredContent: { dryRun: true, tool: call.name, arguments: shown } };
      return done(await recordResult(ctx, call, started, result, { before: [auditEvent(ctx, call, decision)], dryRun: true, hold: true }));
    }
    case 'allowed':
      return execute(ctx, call, decision, started);
  }
}

/** Commits the decision and the call, then reaches the tool and records what came back. */
async function execute(ctx: ToolCallContext, call: RawToolCall, decision: AllowedDecision, started: number): Promise<CallOutcome> {
  const { tool, policy, arguments: args } = decision;
  // The W3C trace context travels to the MCP server in `_meta`, as MCP's tracing proposal does.
  const traceparent = ctx.toolTrace?.traceparent;
  // The decision and the call are committed together, before a tool that may change
  // something is reached. A read may be repeated after a crash, so its call goes with its
  // result (one transaction for the step), or on its own if the read is still running
  // after READ_COMMIT_DELAY_MS (see PassAppender).
  await ctx.append(
    [
      auditEvent(ctx, call, decision),
      draft('tool_call', { step: ctx.step, toolCallId: call.id, name: call.name, arguments: ctx.redact(args) as JsonObject, origin: tool.origin }),
    ],
    undefined,
    policy.effect === 'read' ? HOLD_BACK : undefined,
  );
  let result: ToolResult;
  let threw = false;
  try {
    result =
      tool.origin.kind === 'builtin' && ctx.builtin !== undefined
        ? await ctx.builtin({ name: call.name, arguments: args, toolCallId: call.id })
        : await ctx.tools.callTool({
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
    });
  } catch (error) {
    // ToolSources promise not to throw; one that does still must not end the run.
    threw = true;
    result = toolError('tool_error', `tool "${call.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (policy.effect === 'write' && outcomeUnknown(result, threw)) {
    const detail = result.error?.message ?? 'no answer came';
    const cancelled = ctx.signal?.aborted === true;
    if (!cancelled && policy.unknownOutcome === 'ask') return { kind: 'unknown', effect: 'write', arguments: args, detail };
    // A cancelled run ends here, so the log says what became of the call; `tell_model` hands the doubt to the model.
    const message = cancelled
      ? `the run was cancelled while ${call.name} was in flight (${detail}); it may or may not have happened`
      : `${call.name} was sent but no answer came (${detail}). It MAY HAVE EXECUTED: do not call it again; tell the user to check whether it happened.`;
    return done(await recordResult(ctx, call, started, toolError('outcome_unknown', message)));
  }
  if (ctx.hooks?.afterToolCall !== undefined) {
    try {
      const replaced = await ctx.hooks.afterToolCall({ ...hookCall(ctx, call, decision, args), result });
      if (replaced !== undefined) result = replaced;
    } catch (error) {
      process.emitWarning(`afterToolCall hook failed for ${call.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // A read's result is held back with its call: the whole step is committed while the model is asked again.
  const recorded = await recordResult(ctx, call, started, result, { ...(policy.untrusted && result.notSent !== true ? { untrusted: true } : {}), hold: policy.effect === 'read' });
  return { kind: 'done', result: recorded, returnDirect: policy.returnDirect && result.ok };
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

/** The values `{{user.*}}`, `{{tenant.*}}` and `{{context.*}}` templates read. */
export function injectionContext(ctx: Pick<ToolCallContext, 'userId' | 'tenantId' | 'context'>): { user?: JsonObject; tenant?: JsonObject; context?: JsonObject } {
  return {
    ...(ctx.userId === undefined ? {} : { user: { id: ctx.userId } }),
    ...(ctx.tenantId === undefined ? {} : { tenant: { id: ctx.tenantId } }),
    ...(ctx.context === undefined ? {} : { context: ctx.context }),
  };
}

function hookCall(ctx: ToolCallContext, call: RawToolCall, decision: AuditedDecision, args: JsonObject): HookToolCall {
  return {
    runId: ctx.runId,
    toolCallId: call.id,
    name: call.name,
    tool: decision.tool,
    effect: decision.policy.effect,
    arguments: structuredClone(args),
    ...(ctx.tenantId === undefined ? {} : { tenantId: ctx.tenantId }),
    ...(ctx.userId === undefined ? {} : { userId: ctx.userId }),
    ...(ctx.context === undefined ? {} : { context: ctx.context }),
  };
}

async function runBeforeHook(ctx: ToolCallContext, call: HookToolCall) {
  try {
    return (await ctx.hooks?.beforeToolCall?.(call)) ?? { action: 'allow' as const };
  } catch (error) {
    return { action: 'deny' as const, reason: `the beforeToolCall check failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
