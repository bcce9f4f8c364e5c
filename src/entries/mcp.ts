// `toolgate/mcp`: tool sources — MCP servers (the official SDK), tools defined in code, the registry.
export { McpToolSource, type McpServerConfig, type McpToolSourceOptions } from '../tools/mcp/mcp-tool-source.ts';
export { ToolRegistry, sanitizeToolName, type ToolRegistryOptions, type RetryOptions } from '../tools/tool-registry.ts';
export {
  defineTool,
  isLocalTool,
  type LocalTool,
  type ToolArgs,
  type ToolDefinition,
  type ToolExecutionContext,
} from '../tools/local/define-tool.ts';
export { LocalToolSource, type LocalToolSourceOptions } from '../tools/local/local-tool-source.ts';
