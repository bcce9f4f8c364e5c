import {
  TOOL_NAME_PATTERN,
  ToolgateError,
  isJsonObject,
  type JsonObject,
  type JsonSchema,
  type ToolAnnotations,
  type ToolEffect,
} from '../../core/index.ts';
import { isStandardSchema, standardToJsonSchema, type StandardSchemaV1 } from './standard-schema.ts';

/** What a tool defined in code receives besides its arguments. */
export interface ToolExecutionContext {
  /** Aborted when the run is cancelled or the call times out. */
  signal: AbortSignal;
  /** The run and the call (`tool_call.toolCallId`); empty strings when called outside a run. */
  runId: string;
  toolCallId: string;
  tenantId?: string;
  userId?: string;
  /** The run's context, the values `{{context.*}}` injections are made of ({} when none). */
  context: JsonObject;
}

/** The arguments `execute` receives: a Standard Schema's output type, or a JSON object for a JSON Schema. */
export type ToolArgs<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : JsonObject;

export interface ToolDefinition<S extends StandardSchemaV1 | JsonSchema> {
  /** The name the model sees and policies use (`local/<name>`): letters, digits, `_`, `-`, at most 64. */
  name: string;
  description: string;
  title?: string;
  /** A JSON Schema object, or any Standard Schema (zod 4, valibot, arktype), describing an object. */
  inputSchema: S;
  outputSchema?: StandardSchemaV1 | JsonSchema;
  /**
   * `read`: changes nothing (runs without approval by default); `write`: changes state (waits for approval by default).
   */
  effect: ToolEffect;
  /** MCP-style hints beside the effect (destructiveHint, idempotentHint, openWorldHint, title). */
  annotations?: Omit<ToolAnnotations, 'readOnlyHint'>;
  /** Timeout of a call when no policy rule sets one. */
  timeoutMs?: number;
  /**
   * Does the work. Return a string, any JSON value, or an MCP CallToolResult
   * (`{ content, structuredContent?, isError? }`); throw to report a failure
   * the model sees (`tool_error`).
   */
  execute: (args: ToolArgs<S>, ctx: ToolExecutionContext) => unknown;
}

/** A tool defined in code, ready for createToolgate's `tools` or a LocalToolSource. */
export interface LocalTool<S extends StandardSchemaV1 | JsonSchema = StandardSchemaV1 | JsonSchema> {
  readonly kind: 'local-tool';
  readonly name: string;
  readonly description: string;
  readonly title?: string;
  /** The input schema as JSON Schema (what the model and the gate see). */
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations: ToolAnnotations;
  readonly effect: ToolEffect;
  readonly timeoutMs?: number;
  /** The Standard Schema, when one was given: it parses the arguments `execute` receives. */
  readonly standard?: StandardSchemaV1;
  readonly execute: (args: ToolArgs<S>, ctx: ToolExecutionContext) => unknown;
}

/**
 * Defines a tool in code. It passes the same gate as an MCP tool: its
 * arguments are validated and normalised against the JSON Schema, policies,
 * approval, dry-run and injected arguments apply, and every call is recorded.
 * Mistakes in the definition throw here, naming the tool.
 */
export function defineTool<S extends StandardSchemaV1 | JsonSchema>(definition: ToolDefinition<S>): LocalTool<S> {
  // Checked field by field: JavaScript callers, and TypeScript ones past a cast, can pass anything.
  const d = definition;
  if (typeof d !== 'object' || d === null)
    throw new ToolgateError(
      'usage',
      'defineTool takes one object: { name, description, inputSchema, effect, execute }',
    );
  const name = d.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolgateError(
      'usage',
      `defineTool: the name ${JSON.stringify(name)} is not usable: use 1–64 ` +
        `letters, digits, "_" or "-" (every model API accepts those), e.g. "getOrder"`,
    );
  }
  const what = `tool "${name}"`;
  if (typeof d.description !== 'string')
    throw new ToolgateError(
      'usage',
      `${what}: description must be a string telling the model what the tool does and when to use it`,
    );
  if (d.effect !== 'read' && d.effect !== 'write') {
    throw new ToolgateError(
      'usage',
      `${what}: effect must be 'read' (changes nothing) or 'write' (changes ` +
        `state; waits for approval by default), got ${JSON.stringify(d.effect)}`,
    );
  }
  if (typeof d.execute !== 'function')
    throw new ToolgateError('usage', `${what}: execute must be a function (args, ctx) => result`);
  if (d.timeoutMs !== undefined && (!Number.isInteger(d.timeoutMs) || d.timeoutMs <= 0))
    throw new ToolgateError('usage', `${what}: timeoutMs must be a positive integer (milliseconds)`);
  const standard = isStandardSchema(d.inputSchema) ? d.inputSchema : undefined;
  const inputSchema = toJsonSchema(d.inputSchema, `the inputSchema of ${what}`);
  if (inputSchema['type'] !== undefined && inputSchema['type'] !== 'object') {
    throw new ToolgateError(
      'usage',
      `the inputSchema of ${what} describes ${JSON.stringify(inputSchema['type'])}, not ` +
        `an object: tool arguments are an object, e.g. z.object({ orderId: z.number() })`,
    );
  }
  const tool: LocalTool<S> = {
    kind: 'local-tool',
    name,
    description: d.description,
    inputSchema: inputSchema['type'] === undefined ? { type: 'object', ...inputSchema } : inputSchema,
    annotations: { ...d.annotations, readOnlyHint: d.effect === 'read' },
    effect: d.effect,
    execute: d.execute,
    ...(d.title === undefined ? {} : { title: d.title }),
    ...(d.outputSchema === undefined
      ? {}
      : { outputSchema: toJsonSchema(d.outputSchema, `the outputSchema of ${what}`) }),
    ...(d.timeoutMs === undefined ? {} : { timeoutMs: d.timeoutMs }),
    ...(standard === undefined ? {} : { standard }),
  };
  return Object.freeze(tool);
}

/** Whether a value is a defineTool() result. */
export function isLocalTool(value: unknown): value is LocalTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    'kind' in value &&
    value.kind === 'local-tool' &&
    'execute' in value &&
    typeof value.execute === 'function'
  );
}

function toJsonSchema(schema: unknown, what: string): JsonSchema {
  if (isStandardSchema(schema)) return standardToJsonSchema(schema, what);
  if (isJsonObject(schema)) return schema;
  throw new ToolgateError(
    'usage',
    `${what} must be a JSON Schema object or a Standard Schema (zod 4, ` +
      `valibot, arktype), got ${schema === null ? 'null' : typeof schema}`,
  );
}
