import {
  draft,
  toolError,
  type EventDraft,
  type JsonObject,
  type JsonValue,
  type Provenance,
  type RawToolCall,
  type RunEventDataMap,
  type ToolResult,
  type ToolSource,
} from '../core/index.ts';
import { decide, isToolAllowed, EMPTY_POLICY, type Policy, type ToolEffect } from '../gate/index.ts';
import type { Validator } from '../validation/index.ts';
import type { ApprovalDecision } from './conversation-state.ts';
import { prepareCall, type PreparedCall } from './prepare-call.ts';
import { DEFAULT_TOOL_TIMEOUT_MS, type HookToolCall, type RunHooks } from './run-options.ts';
import type { CatalogEntry, ToolCatalog } from './tool-catalog.ts';

/** The `_meta` key MCP servers can use to deduplicate a retried call. */
export const IDEMPOTENCY_META_KEY = 'toolgate/idempotency-key';

export interface ToolCallContext {
  runId: string;
  step: number;
  /** Appends to the run's log (and keeps the loop's view of it current). */
  append: (drafts: EventDraft[]) => Promise<unknown>;
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

type GateData = RunEventDataMap['gate_decision'];

/**
 * The one path from a model's tool call to a tool:
 * parse → validate/normalise/inject → gate (allow, deny, dry-run, approval,
 * hooks) → execute → record. Every call ends in exactly one tool_result (or
 * pending approval); a `tool_call` event is committed before the tool is
 * reached. Nothing here throws for bad input: the model gets the reason.
 */
export async function executeToolCall(ctx: ToolCallContext, call: RawToolCall, approval?: ApprovalDecision): Promise<CallOutcome> {
  const started = performance.now();
  let gated: Gated;
  try {
    gated = await gateCall(ctx, call, approval, started);
  } catch (error) {
    // Nothing was sent yet: whatever went wrong (a pathological value, a bug)
    // fails this call alone, recorded, and the model is told.
    const message = `toolgate could not process this call to ${call.name}: ${error instanceof Error ? error.message : String(error)}`;
    return done(await record(ctx, call, started, toolError('invalid_arguments', message)));
  }
  if (gated.kind !== 'execute') return gated.outcome;
  return execute(ctx, call, gated, started);
}

type Gated =
  | { kind: 'outcome'; outcome: CallOutcome }
  | { kind: 'execute'; entry: CatalogEntry; args: JsonObject; gate: EventDraft; approval: ApprovalDecision | undefined };

/** parse → validate/normalise/inject → hooks → policy: everything before a tool is reached. */
async function gateCall(ctx: ToolCallContext, call: RawToolCall, approval: ApprovalDecision | undefined, started: number): Promise<Gated> {
  if (approval?.decision === 'mark_done') {
    // A person saw that a call whose outcome was unknown did happen: record that, never execute it again.
    const observed = approval.result;
    const seen = observed === undefined ? '' : ` What they observed: ${typeof observed === 'string' ? observed : JSON.stringify(observed)}`;
    const text = `${approval.userId ?? 'A person'} confirmed that this call to ${call.name} did happen; it was not executed again.${seen}`;
    const result: ToolResult = { ok: true, content: [{ type: 'text', text }], ...(observed === undefined ? {} : { structuredContent: observed }) };
    return settled(await record(ctx, call, started, result, [], { markedDone: true }));
  }
  const entry = ctx.catalog.visible.get(call.name);
  if (entry === undefined) {
    const denied = ctx.catalog.denied.get(call.name);
    if (denied !== undefined) {
      const gate = audit(ctx, call, denied.entry, { decision: 'denied', reason: denied.reason });
      return settled(await record(ctx, call, started, toolError('denied', `${call.name} is not available to you: ${denied.reason}. Do not call it again.`), [gate]));
    }
    const known = [...ctx.catalog.visible.keys()].join(', ');
    return settled(await record(ctx, call, started, toolError('tool_not_found', `there is no tool named "${call.name}"; available tools: ${known === '' ? '(none)' : known}`)));
  }

  const injection = injectionContext(ctx);
  const source = approval?.decision === 'edit' && approval.arguments !== undefined ? approval.arguments : call.arguments;
  const prepared = prepareCall({ entry, arguments: source, validator: ctx.validator, injection, truncated: ctx.truncated === true });
  if (!prepared.ok) {
    const gate = audit(ctx, call, entry, {
      decision: prepared.decision,
      reason: prepared.message,
      normalisations: prepared.normalisations,
      ...(prepared.issues === undefined ? {} : { issues: prepared.issues.map((i) => ({ code: i.code, path: i.path, message: i.message })) }),
    });
    return settled(await record(ctx, call, started, toolError(prepared.code, prepared.message), [gate]));
  }

  let args = prepared.arguments;
  let hookInfo: GateData['hook'];
  const effect = entry.policy.effect;
  if (ctx.hooks?.beforeToolCall !== undefined) {
    const verdict = await runBeforeHook(ctx, hookCall(ctx, call, entry, args));
    if (verdict.action === 'deny') {
      const gate = audit(ctx, call, entry, { decision: 'denied', reason: verdict.reason, prepared, hook: { name: 'beforeToolCall', action: 'deny', reason: verdict.reason } });
      return settled(await record(ctx, call, started, toolError('denied', `${call.name} was refused: ${verdict.reason}`), [gate]));
    }
    if (verdict.action === 'rewrite') {
      const again = ctx.validator.validate(entry.tool.inputSchema, verdict.arguments);
      if (!again.ok) {
        const reason = `beforeToolCall rewrote the arguments into invalid ones: ${again.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`;
        const gate = audit(ctx, call, entry, { decision: 'denied', reason, prepared, hook: { name: 'beforeToolCall', action: 'rewrite', reason } });
        return settled(await record(ctx, call, started, toolError('denied', `${call.name} was refused: ${reason}`), [gate]));
      }
      args = verdict.arguments;
      hookInfo = { name: 'beforeToolCall', action: 'rewrite', ...(verdict.reason === undefined ? {} : { reason: verdict.reason }) };
    }
  }

  if (approval?.decision === 'reject') {
    const reason = approval.reason ?? 'no reason given';
    const gate = audit(ctx, call, entry, { decision: 'denied', reason: `rejected by a person: ${reason}`, prepared, hook: hookInfo });
    return settled(await record(ctx, call, started, toolError('rejected', `A person rejected this call to ${call.name}: ${reason}. Do not retry it unchanged.`), [gate]));
  }

  const allowed = isToolAllowed(ctx.policy ?? EMPTY_POLICY, ctx.tenantId, entry.tool);
  const verdict = decide({
    tool: entry.tool,
    exposedName: call.name,
    arguments: args,
    policy: entry.policy,
    allowed,
    dryRun: ctx.dryRun,
    approvalGranted: approval !== undefined,
    tainted: (ctx.untrusted ?? []).length > 0,
  });
  if (verdict.kind === 'deny') {
    const gate = audit(ctx, call, entry, { decision: 'denied', reason: verdict.reason, prepared, hook: hookInfo });
    return settled(await record(ctx, call, started, toolError('denied', `${call.name} is not available to you: ${verdict.reason}`), [gate]));
  }
  if (verdict.kind === 'approval_required') {
    const why = verdict.reason === 'untrusted_output' ? `a write after untrusted output (${describeProvenance(ctx.untrusted ?? [])}) needs a person` : undefined;
    await ctx.append([audit(ctx, call, entry, { decision: 'approval_required', prepared, hook: hookInfo, ...(why === undefined ? {} : { reason: why }) })]);
    return { kind: 'outcome', outcome: { kind: 'pending', effect, arguments: args, reason: verdict.reason } };
  }
  if (verdict.kind === 'dry_run') {
    const gate = audit(ctx, call, entry, { decision: 'dry_run', prepared, hook: hookInfo });
    const text = `DRY RUN: ${call.name} was validated and would have run with these arguments, but was not executed: ${JSON.stringify(ctx.redact(args))}`;
    return settled(await record(ctx, call, started, { ok: true, content: [{ type: 'text', text }], structuredContent: { dryRun: true, tool: call.name, arguments: ctx.redact(args) } }, [gate], { dryRun: true }));
  }

  const gate = audit(ctx, call, entry, {
    decision: 'allowed',
    prepared,
    hook: hookInfo,
    ...(approval === undefined ? {} : { reason: `approved by ${approval.userId ?? 'a person'}${approval.decision === 'edit' ? ' with edited arguments' : ''}` }),
  });
  return { kind: 'execute', entry, args, gate, approval };
}

/** Commits the decision and the call, then reaches the tool and records what came back. */
async function execute(ctx: ToolCallContext, call: RawToolCall, gated: Extract<Gated, { kind: 'execute' }>, started: number): Promise<CallOutcome> {
  const { entry, args, gate } = gated;
  // The decision and the call are committed together, before the tool is reached.
  await ctx.append([
    gate,
    draft('tool_call', { step: ctx.step, toolCallId: call.id, name: call.name, arguments: ctx.redact(args) as JsonObject, origin: entry.tool.origin }),
  ]);
  let result: ToolResult;
  let threw = false;
  try {
    result = await ctx.tools.callTool({
      name: call.name,
      arguments: args,
      timeoutMs: entry.policy.timeoutMs ?? ctx.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      meta: { [IDEMPOTENCY_META_KEY]: `${ctx.runId}:${call.id}` },
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    });
  } catch (error) {
    // ToolSources promise not to throw; one that does still must not end the run.
    threw = true;
    result = toolError('tool_error', `tool "${call.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (entry.policy.effect === 'write' && outcomeUnknown(result, threw)) {
    const detail = result.error?.message ?? 'no answer came';
    const cancelled = ctx.signal?.aborted === true;
    if (!cancelled && entry.policy.unknownOutcome === 'ask') return { kind: 'unknown', effect: 'write', arguments: args, detail };
    // A cancelled run ends here, so the log says what became of the call; `tell_model` hands the doubt to the model.
    const message = cancelled
      ? `the run was cancelled while ${call.name} was in flight (${detail}); it may or may not have happened`
      : `${call.name} was sent but no answer came (${detail}). It MAY HAVE EXECUTED: do not call it again; tell the user to check whether it happened.`;
    return done(await record(ctx, call, started, toolError('outcome_unknown', message)));
  }
  if (ctx.hooks?.afterToolCall !== undefined) {
    try {
      const replaced = await ctx.hooks.afterToolCall({ ...hookCall(ctx, call, entry, args), result });
      if (replaced !== undefined) result = replaced;
    } catch (error) {
      process.emitWarning(`afterToolCall hook failed for ${call.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const recorded = await record(ctx, call, started, result, [], entry.policy.untrusted && result.notSent !== true ? { untrusted: true } : {});
  return { kind: 'done', result: recorded, returnDirect: entry.policy.returnDirect && result.ok };
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

function describeProvenance(list: readonly Provenance[]): string {
  const names = [...new Set(list.map((p) => p.name))];
  return `from ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
}

function done(result: ToolResult): CallOutcome {
  return { kind: 'done', result, returnDirect: false };
}

function settled(result: ToolResult): { kind: 'outcome'; outcome: CallOutcome } {
  return { kind: 'outcome', outcome: done(result) };
}

/** The values `{{user.*}}`, `{{tenant.*}}` and `{{context.*}}` templates read. */
export function injectionContext(ctx: Pick<ToolCallContext, 'userId' | 'tenantId' | 'context'>): { user?: JsonObject; tenant?: JsonObject; context?: JsonObject } {
  return {
    ...(ctx.userId === undefined ? {} : { user: { id: ctx.userId } }),
    ...(ctx.tenantId === undefined ? {} : { tenant: { id: ctx.tenantId } }),
    ...(ctx.context === undefined ? {} : { context: ctx.context }),
  };
}

function hookCall(ctx: ToolCallContext, call: RawToolCall, entry: CatalogEntry, args: JsonObject): HookToolCall {
  return {
    runId: ctx.runId,
    toolCallId: call.id,
    name: call.name,
    tool: entry.tool,
    effect: entry.policy.effect,
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

interface AuditInput {
  decision: GateData['decision'];
  reason?: string;
  prepared?: PreparedCall;
  normalisations?: PreparedCall['normalisations'];
  issues?: GateData['issues'];
  hook?: GateData['hook'] | undefined;
}

/** The call's gate_decision event; appended together with what follows it (fewer writes, one atomic step). */
function audit(ctx: ToolCallContext, call: RawToolCall, entry: CatalogEntry, input: AuditInput): EventDraft {
  const normalisations = input.prepared?.normalisations ?? input.normalisations ?? [];
  const data: GateData = {
    step: ctx.step,
    toolCallId: call.id,
    name: call.name,
    effect: entry.policy.effect,
    decision: input.decision,
    normalisations: normalisations.map((n) => ({ path: n.path, from: ctx.redact(n.from), rule: n.rule, ...(n.to === undefined ? {} : { to: ctx.redact(n.to) }) })),
    injected: (input.prepared?.injected ?? []).map((i) => ({ key: i.key, overridden: i.overridden })),
    ...(entry.policy.policyRule === undefined ? {} : { policyRule: entry.policy.policyRule }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    ...(input.issues === undefined ? {} : { issues: input.issues }),
    ...(input.hook === undefined ? {} : { hook: input.hook }),
  };
  return draft('gate_decision', data);
}

async function record(
  ctx: ToolCallContext,
  call: RawToolCall,
  started: number,
  result: ToolResult,
  before: EventDraft[] = [],
  flags: { dryRun?: boolean; untrusted?: boolean; markedDone?: boolean } = {},
): Promise<ToolResult> {
  const data: RunEventDataMap['tool_result'] = {
    step: ctx.step,
    toolCallId: call.id,
    name: call.name,
    ok: result.ok,
    content: result.content,
    latencyMs: Math.round((performance.now() - started) * 100) / 100,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(flags.dryRun === true ? { dryRun: true } : {}),
    ...(flags.untrusted === true ? { untrusted: true } : {}),
    ...(flags.markedDone === true ? { markedDone: true } : {}),
  };
  await ctx.append([...before, draft('tool_result', data)]);
  return result;
}
