/** Tool specs shared by the gate's tests, shaped like the demo servers' tools. */
import type { ToolAnnotations, ToolSpec } from '../../src/core/tools.ts';
import { PLACE_ORDER_SCHEMA, WRITE_FILE_SCHEMA } from './test-schemas.ts';

export function mcpTool(
  server: string,
  tool: string,
  options: { annotations?: ToolAnnotations; exposedName?: string } = {},
): ToolSpec {
  const spec: ToolSpec = {
    name: options.exposedName ?? tool,
    description: `${tool} on ${server}`,
    inputSchema: { type: 'object', properties: {} },
    origin: { kind: 'mcp', server, tool },
  };
  if (options.annotations !== undefined) spec.annotations = options.annotations;
  return spec;
}

export const PLACE_ORDER: ToolSpec = {
  name: 'placeOrder',
  description: 'Places a limit order.',
  inputSchema: PLACE_ORDER_SCHEMA,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  origin: { kind: 'mcp', server: 'power-exchange', tool: 'placeOrder' },
};

export const GET_ORDER_BOOK: ToolSpec = {
  name: 'getOrderBook',
  description: 'The order book of a symbol.',
  inputSchema: { type: 'object', properties: { symbol: { type: 'string' } } },
  annotations: { readOnlyHint: true, openWorldHint: false },
  origin: { kind: 'mcp', server: 'power-exchange', tool: 'getOrderBook' },
};

export const WRITE_FILE: ToolSpec = {
  name: 'filesystem_write_file',
  description: 'Create or overwrite a file.',
  inputSchema: WRITE_FILE_SCHEMA,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
  origin: { kind: 'mcp', server: 'filesystem', tool: 'write_file' },
};

/** The everything server's `echo`: no annotations at all. */
export const ECHO: ToolSpec = {
  name: 'echo',
  description: 'Echoes back the input.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  origin: { kind: 'mcp', server: 'everything', tool: 'echo' },
};
