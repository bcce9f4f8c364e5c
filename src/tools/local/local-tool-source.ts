import {
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolgateError,
  describeError,
  toolError,
  type CallToolRequest,
  type JsonObject,
  type JsonValue,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
} from '../../core/index.ts';
import { parseJson } from '../../core/parse-json.ts';
import { fromMcpResult } from '../mcp/mcp-result.ts';
import type { LocalTool, ToolExecutionContext } from './define-tool.ts';
import type { StandardSchemaV1 } from './standard-schema.ts';

export const DEFAULT_LOCAL_SOURCE_NAME = 'local';

export interface LocalToolSourceOptions {
  /** The `server` part of tool origins and policy patterns (`local/getOrder`). */
  name?: string;
  tools: readonly LocalTool[];
}

const EMPTY_CONTEXT: JsonObject = Object.freeze<JsonObject>({});

/**
 * Tools defined in code as a ToolSource. A call runs `execute` in this
 * process: its return value or error becomes a tool result the way an MCP
 * server's would, cancellation and the timeout abort its signal, and a call
 * that outlives its timeout is answered `tool_timeout` even if `execute`
 * ignores the signal.
 */
export class LocalToolSource implements ToolSource {
  readonly name: string;
  readonly #tools = new Map<string, { tool: LocalTool; spec: ToolSpec }>();

  constructor(options: LocalToolSourceOptions) {
    this.name = options.name ?? DEFAULT_LOCAL_SOURCE_NAME;
    for (const tool of options.tools) {
      if (this.#tools.has(tool.name))
        throw new ToolgateError(
          'usage',
          `two tools are named "${tool.name}" in "${this.name}": give each a name of its own`,
        );
      const spec: ToolSpec = {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
        origin: { kind: 'local', server: this.name, tool: tool.name },
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
      };
      this.#tools.set(tool.name, { tool, spec });
    }
  }

  listTools(): Promise<ToolSpec[]> {
    return Promise.resolve([...this.#tools.values()].map((t) => t.spec));
  }

  async callTool(request: CallToolRequest): Promise<ToolResult> {
    const entry = this.#tools.get(request.name);
    if (entry === undefined)
      return toolError('tool_not_found', `there is no tool named "${request.name}" in "${this.name}"`);
    const { tool } = entry;
    if (request.signal?.aborted === true)
      return { ...toolError('cancelled', `call to "${tool.name}" was cancelled before it started`), notSent: true };
    let args: unknown = request.arguments;
    if (tool.standard !== undefined) {
      const checking = parseWith(tool.standard, args);
      // A synchronous schema (zod's usual case) answers at once: no wait for it.
      const parsed = checking instanceof Promise ? await checking : checking;
      if (!parsed.ok)
        return {
          ...toolError('invalid_arguments', `invalid arguments for ${tool.name}: ${parsed.message}`),
          notSent: true,
        };
      args = parsed.value;
    }
    const timeoutMs = request.timeoutMs ?? tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return execute({ tool, args, request, timeoutMs });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/** The schema's verdict: at once when the schema checks synchronously, else once it has. */
function parseWith(schema: StandardSchemaV1, value: unknown): Parsed | Promise<Parsed> {
  let result: ReturnType<StandardSchemaV1['~standard']['validate']>;
  try {
    result = schema['~standard'].validate(value);
  } catch (error) {
    return schemaFailed(error);
  }
  return result instanceof Promise ? result.then(verdictOf, schemaFailed) : verdictOf(result);
}

function verdictOf(result: StandardSchemaV1.Result<unknown>): Parsed {
  if (result.issues === undefined) return { ok: true, value: result.value };
  const issues = result.issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  return { ok: false, message: issues.join('; ') || 'the arguments were refused' };
}

function schemaFailed(error: unknown): Parsed {
  return { ok: false, message: `the schema could not check them (${describeError(error)})` };
}

interface Execution {
  tool: LocalTool;
  /** The arguments as `execute` receives them (parsed by the tool's Standard Schema, if it has one). */
  args: unknown;
  request: CallToolRequest;
  timeoutMs: number;
}

function execute({ tool, args, request, timeoutMs }: Execution): Promise<ToolResult> {
  // Made when the tool first reads its signal, or when it must be aborted: most tools never look.
  let controller: AbortController | undefined;
  let abortedWith: { reason: unknown } | undefined;
  const invocation = request.invocation;
  const ctx: ToolExecutionContext = {
    get signal(): AbortSignal {
      controller ??= new AbortController();
      if (abortedWith !== undefined && !controller.signal.aborted) controller.abort(abortedWith.reason);
      return controller.signal;
    },
    runId: invocation?.runId ?? '',
    toolCallId: invocation?.toolCallId ?? '',
    context: invocation?.context ?? EMPTY_CONTEXT,
    ...(invocation?.tenantId === undefined ? {} : { tenantId: invocation.tenantId }),
    ...(invocation?.userId === undefined ? {} : { userId: invocation.userId }),
  };
  const abort = (reason: unknown): void => {
    abortedWith ??= { reason };
    controller?.abort(reason);
  };
  return new Promise<ToolResult>((resolve) => {
    let settled = false;
    // The first of: the tool's answer, the timeout, a cancel. What comes later is dropped.
    const settle = (result: ToolResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const timer = setTimeout(() => {
      abort(new Error(`timed out after ${timeoutMs} ms`));
      settle(toolError('tool_timeout', `${tool.name} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = (): void => {
      abort(request.signal?.reason);
      settle(toolError('cancelled', `call to "${tool.name}" was cancelled`));
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    // An Error without a message still says what it is by its name.
    const failed = (error: unknown): void =>
      settle(
        toolError('tool_error', error instanceof Error && error.message === '' ? error.name : describeError(error)),
      );
    const answered = (value: unknown): void => {
      let result: ToolResult;
      try {
        result = toToolResult(value);
      } catch (error) {
        failed(error);
        return;
      }
      settle(result);
    };
    let value: unknown;
    try {
      value = tool.execute(args, ctx);
    } catch (error) {
      failed(error);
      return;
    }
    // A thenable the tool returned is awaited as `await` would; anything else is its answer.
    if (isThenable(value)) Promise.resolve(value).then(answered, failed);
    else answered(value);
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    'then' in value &&
    typeof value.then === 'function'
  );
}

/** A return value as a tool result, the way an MCP server's reply maps. */
export function toToolResult(value: unknown): ToolResult {
  if (value === undefined) return { ok: true, content: [] };
  if (typeof value === 'string') return { ok: true, content: [{ type: 'text', text: value }] };
  if (isCallToolResult(value)) return fromMcpResult(value);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return toolError('tool_error', `the tool returned a value that is not JSON (${describeError(error)})`);
  }
  if (text === undefined)
    return toolError('tool_error', `the tool returned a value that is not JSON (${typeof value})`);
  const result: ToolResult = { ok: true, content: [{ type: 'text', text }] };
  // JSON text read back is JSON; parseJson, as a key like "\n" in a tool's output would meet V8's JSON.parse bug.
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    result.structuredContent = parseJson(text) as JsonValue;
  return result;
}

function isCallToolResult(
  value: unknown,
): value is { content: unknown[]; structuredContent?: unknown; isError?: unknown } {
  return typeof value === 'object' && value !== null && 'content' in value && Array.isArray(value.content);
}
