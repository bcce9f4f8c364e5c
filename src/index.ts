// toolgate as a library. Everything exported here is public API.
export * from './core/index.ts';
export { Toolgate, type ToolgateOptions, type RunRequest, type ClassifiedTool } from './app/toolgate.ts';
export { createToolgate, toolgateFrom } from './app/create-toolgate.ts';
export {
  toolgateOptionsFromSettings,
  type CreateToolgateOptions,
  type McpServerEntry,
  type TenantPolicy,
  type ToolEntry,
  type ToolgatePolicy,
} from './app/toolgate-options.ts';
export { LOCAL_TOOLS_SOURCE } from './app/sort-tool-entries.ts';
export { defineTool, isLocalTool, type LocalTool, type ToolArgs, type ToolDefinition, type ToolExecutionContext } from './tools/local/define-tool.ts';
export { LocalToolSource, type LocalToolSourceOptions } from './tools/local/local-tool-source.ts';
export type { StandardSchemaV1 } from './tools/local/standard-schema.ts';
export { sharedValidator, createValidator, type Validator } from './validation/index.ts';
export { createModel, type CreateModelOptions } from './app/create-model.ts';
export { withEstimatedUsage } from './providers/shared/estimate-usage.ts';
export { loadConfig, parseConfig, type LoadConfigOptions } from './config/load-config.ts';
export { resolveSettings, type Settings, type SettingsFlags } from './config/resolve-settings.ts';
export type { ToolgateConfig, ServerConfig } from './config/config-schema.ts';
export type { ProviderType } from './config/providers.ts';
export type {
  ProvidersConfig,
  ProviderConfig,
  ProviderEntry,
  OpenAIProviderEntry,
  AnthropicProviderEntry,
  OllamaProviderEntry,
} from './config/providers-schema.ts';
export { runAgent, DEFAULT_MAX_STEPS, type RunAgentOptions } from './orchestrator/run-agent.ts';
export { MemoryRunStore } from './store/memory/memory-run-store.ts';
export { MemoryLimits } from './store/memory/memory-limits.ts';
export { McpToolSource, type McpServerConfig, type McpToolSourceOptions } from './tools/mcp/mcp-tool-source.ts';
export { ToolRegistry, sanitizeToolName, type ToolRegistryOptions, type RetryOptions } from './tools/tool-registry.ts';
export { RunManager, DEFAULT_CONCURRENCY } from './app/run-manager.ts';
export { openStore, DEFAULT_STORE } from './app/open-store.ts';
export { parseModelMessage, parseModelText, toolRefsFrom } from './app/parse-text.ts';
export type { AssistantMessageInput, ExtractionResult, NativeToolCall, ToolRef } from './app/parse-text.ts';
export { startHttpServer, createHttpHandler } from './app/lazy-http-server.ts';
export type { ApiKeyEntry, HttpServerOptions } from './server/index.ts';
export { openSqliteRunStore } from './store/sqlite/open-sqlite-run-store.ts';
export { SqliteRunStore } from './store/sqlite/sqlite-run-store.ts';
export type { RunHooks, HookToolCall, BeforeToolCallVerdict, ToolMode } from './orchestrator/run-options.ts';
export type { Policy, ToolRule, TenantRule } from './gate/index.ts';
// Tool-call formats as data, and formats derived from a model's chat template (docs/parsing.md).
export { BUILTIN_FORMATS, checkCallFormat, renderCall } from './parsing/index.ts';
export type { ArgumentGrammar, CallFormat, CallFormatCheck, NameSlot, XmlParameters } from './parsing/index.ts';
export { deriveFormat, type DeriveOptions, type DeriveResult } from './parsing/templates/derive-format.ts';
export { renderAssistantCalls, type RenderCallsResult } from './parsing/templates/render-assistant-calls.ts';
export { explainFormat } from './parsing/templates/explain-format.ts';
export { loadChatTemplate, type LoadChatTemplateOptions, type LoadedChatTemplate } from './app/chat-template-source.ts';
