import {
  draft,
  isJsonObject,
  toolError,
  type JsonObject,
  type RawToolCall,
  type RunStore,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
} from '../core/index.ts';

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** The `_meta` key MCP servers can use to deduplicate a retried call. */
export const IDEMPOTENCY_META_KEY = 'toolgate/idempotency-key';

export interface ToolCallContext {
  runId: string;
  step: number;
  store: RunStore;
  tools: ToolSource;
  /** The tools offered this run, by the name the model sees. */
  catalog: ReadonlyMap<string, ToolSpec>;
  signal?: AbortSignal;
  toolTimeoutMs?: number;
}

/**
 * The one path from a model's tool call to a tool. Every call is recorded: a
 * `tool_call` event is committed before the tool is called and a `tool_result`
 * after, whatever happens. A call that cannot run (unknown tool, arguments that
 * are not a JSON object) never reaches a tool; the model gets the reason.
 */
export async function executeToolCall(ctx: ToolCallContext, call: RawToolCall): Promise<ToolResult> {
  const started = performance.now();
  const spec = ctx.catalog.get(call.name);
  if (spec === undefined) {
    const known = [...ctx.catalog.keys()].join(', ');
    return record(ctx, call, started, toolError('tool_not_found', `there is no tool named "${call.name}"; available tools: ${known === '' ? '(none)' : known}`));
  }
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) return record(ctx, call, started, toolError('invalid_arguments', parsed.message));

  await ctx.store.append(ctx.runId, [
    draft('tool_call', { step: ctx.step, toolCallId: call.id, name: call.name, arguments: parsed.value, origin: spec.origin }),
  ]);
  let result: ToolResult;
  try {
    result = await ctx.tools.callTool({
      name: call.name,
      arguments: parsed.value,
      timeoutMs: ctx.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      meta: { [IDEMPOTENCY_META_KEY]: `${ctx.runId}:${call.id}` },
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    });
  } catch (error) {
    // ToolSources promise not to throw; one that does still must not end the run.
    result = toolError('tool_error', `tool "${call.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return record(ctx, call, started, result);
}

async function record(ctx: ToolCallContext, call: RawToolCall, started: number, result: ToolResult): Promise<ToolResult> {
  const data = {
    step: ctx.step,
    toolCallId: call.id,
    name: call.name,
    ok: result.ok,
    content: result.content,
    latencyMs: Math.round((performance.now() - started) * 100) / 100,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
  await ctx.store.append(ctx.runId, [draft('tool_result', data)]);
  return result;
}

function parseArguments(raw: string): { ok: true; value: JsonObject } | { ok: false; message: string } {
  if (raw.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, message: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); send a JSON object` };
  }
  if (!isJsonObject(value)) return { ok: false, message: `the arguments must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}` };
  return { ok: true, value };
}
