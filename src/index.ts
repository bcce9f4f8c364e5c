// toolgate as a library. Everything exported here is public API, named one by one so that
// nothing becomes public by accident: test/architecture/public-names.test.ts pins the list of
// this entry and of the subpath entries in src/entries/ (toolgate/server, toolgate/store/…).
// The domain: types, ports, error codes, events (src/core/).
export {
  ACTIVE_RUN_STATUSES,
  DEFAULT_HISTORY_MAX_TOKENS,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_JSON_NODES,
  DEFAULT_MAX_REPEATS,
  DEFAULT_MAX_REPLANS,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_PARSE_RETRIES,
  DEFAULT_SSE_MAX_EVENT_BYTES,
  DEFAULT_STRATEGY,
  DEFAULT_TODO_REMIND_AFTER,
  DEFAULT_TOOL_TIMEOUT_MS,
  ERROR_CODES,
  MAX_RUNS_EXAMINED,
  MAX_RUN_SEARCH_LENGTH,
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  RUN_STRATEGY_LABELS,
  STRATEGY_NAMES,
  SseParser,
  TERMINAL_EVENT_TYPES,
  TERMINAL_RUN_STATUSES,
  TOOL_NAME_PATTERN,
  TRUNCATED_META_KEY,
  ToolgateError,
  WAITING_RUN_STATUSES,
  ZERO_USAGE,
  addUsage,
  checkJsonShape,
  closestName,
  copyAsJson,
  costOf,
  didYouMean,
  draft,
  editDistance,
  escapeRegExp,
  estimatedTokens,
  findJsonSyntaxError,
  isErrorCode,
  isJsonObject,
  isTerminalEvent,
  listRunsFiltered,
  newId,
  parseJson,
  renderToolResult,
  runMatches,
  runStrategy,
  toErrorInfo,
  toolError,
} from './core/index.ts';
export type {
  AppendOptions,
  ApprovalReason,
  AssistantMessage,
  CallToolRequest,
  Caller,
  ClaimOptions,
  ErrorCode,
  ErrorInfo,
  EventDraft,
  EventListener,
  FinishReason,
  ForkRunRequest,
  ForkSettings,
  GateDecisionKind,
  GatewaySessionSettings,
  GenerateOptions,
  GuardCode,
  GuardLimits,
  IdempotencyOptions,
  IdempotencyRequest,
  JsonObject,
  JsonPrimitive,
  JsonSchema,
  JsonShapeLimits,
  JsonShapeProblem,
  JsonSyntaxError,
  JsonValue,
  LimitStore,
  ListRunsQuery,
  Message,
  ModelAdapter,
  ModelChoices,
  ModelPrice,
  ModelRequest,
  ModelResponse,
  ModelToolDefinition,
  NewRun,
  PassthroughSource,
  PendingApproval,
  PlanEventData,
  PlanSettings,
  PlanStep,
  Provenance,
  RawToolCall,
  ReadEventsOptions,
  Readiness,
  RouterEvidence,
  Run,
  RunEvent,
  RunEventDataMap,
  RunEventType,
  RunFilter,
  RunInput,
  RunLease,
  RunListQuery,
  RunPage,
  RunPatch,
  RunService,
  RunSettings,
  RunStatus,
  RunStore,
  RunStrategyLabel,
  SlotLimit,
  SlotOutcome,
  SseEmit,
  SseEvent,
  SseParserOptions,
  StartRunRequest,
  StrategyName,
  StrikeCount,
  SystemMessage,
  TakeSlotRequest,
  TenantTool,
  Thread,
  TodoItem,
  TodoSettings,
  ToolAnnotations,
  ToolCall,
  ToolContent,
  ToolEffect,
  ToolErrorCode,
  ToolInvocation,
  ToolListing,
  ToolMessage,
  ToolOrigin,
  ToolPin,
  ToolResult,
  ToolSource,
  ToolSourceHealth,
  ToolSourceState,
  ToolSpec,
  ToolgateErrorOptions,
  ToolsView,
  UnavailableToolSource,
  Usage,
  UserMessage,
} from './core/index.ts';
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
export {
  defineTool,
  isLocalTool,
  type LocalTool,
  type ToolArgs,
  type ToolDefinition,
  type ToolExecutionContext,
} from './tools/local/define-tool.ts';
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
export type { RunHooks, HookToolCall, BeforeToolCallVerdict, ToolMode } from './orchestrator/state/run-options.ts';
export type { Policy, ToolRule, TenantRule } from './gate/index.ts';
// Tool-call formats as data, and formats derived from a model's chat template (docs/parsing.md).
export { BUILTIN_FORMATS, checkCallFormat, renderCall } from './parsing/index.ts';
export type { ArgumentGrammar, CallFormat, CallFormatCheck, NameSlot, XmlParameters } from './parsing/index.ts';
export { deriveFormat, type DeriveOptions, type DeriveResult } from './parsing/templates/derive-format.ts';
export { renderAssistantCalls, type RenderCallsResult } from './parsing/templates/render-assistant-calls.ts';
export { explainFormat } from './parsing/templates/explain-format.ts';
export { loadChatTemplate, type LoadChatTemplateOptions, type LoadedChatTemplate } from './app/chat-template-source.ts';
