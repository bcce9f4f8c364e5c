import { isJsonObject, type ToolAnnotations, type ToolSpec } from '../../core/index.ts';

/** A tool as an MCP server lists it (the fields toolgate reads). */
export interface McpListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  execution?: unknown;
}

/**
 * Whether a listed tool runs as an MCP task (2025-11-25 `execution.taskSupport`): `required` tools are called as
 * tasks (the gateway's clients see a plain tool); anything else is called directly.
 */
export function taskSupportOf(tool: McpListedTool): 'required' | 'optional' | 'forbidden' {
  const support = isJsonObject(tool.execution) ? tool.execution['taskSupport'] : undefined;
  return support === 'required' || support === 'optional' ? support : 'forbidden';
}

/**
 * An MCP server's tool as toolgate's ToolSpec: `server` is the server's configured name, `timeoutMs` the server's
 * default call timeout.
 */
export function mcpToolSpec(tool: McpListedTool, where: { server: string; timeoutMs?: number | undefined }): ToolSpec {
  const spec: ToolSpec = {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: isJsonObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' },
    origin: { kind: 'mcp', server: where.server, tool: tool.name },
  };
  if (tool.title !== undefined) spec.title = tool.title;
  if (where.timeoutMs !== undefined) spec.timeoutMs = where.timeoutMs;
  if (isJsonObject(tool.outputSchema)) spec.outputSchema = tool.outputSchema;
  if (isJsonObject(tool.annotations)) spec.annotations = pickAnnotations(tool.annotations);
  return spec;
}

function pickAnnotations(raw: Record<string, unknown>): ToolAnnotations {
  const out: ToolAnnotations = {};
  if (typeof raw['title'] === 'string') out.title = raw['title'];
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    const value = raw[key];
    if (typeof value === 'boolean') out[key] = value;
  }
  return out;
}
