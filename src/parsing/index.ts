export { extractToolCalls } from './extract-tool-calls.ts';
export { repairJson } from './repair-json.ts';
export type { RepairJsonResult } from './repair-json.ts';
export { repairArguments } from './repair-arguments.ts';
export type { RepairArgumentsOptions, RepairArgumentsResult } from './repair-arguments.ts';
export { createStreamFilter } from './stream-filter.ts';
export type { StreamFilter, StreamFilterOptions } from './stream-filter.ts';
export { renderToolPrompt, toolCallJsonSchema, TOOL_CALL_FORMAT } from './tool-prompt.ts';
export type { PromptTool, ToolCallSchemaOptions, ToolPromptOptions } from './tool-prompt.ts';
export { formatParseFeedback } from './feedback.ts';
export type { ParseFeedbackInput } from './feedback.ts';
export { CALL_FAILURE_CODES, PARSE_DIAGNOSTIC_CODES, REPAIR_KINDS } from './types.ts';
export type {
  ExtractOptions,
  ExtractedCall,
  ExtractionResult,
  ParseDiagnostic,
  ParseDiagnosticCode,
  RepairKind,
  Span,
  ToolRef,
} from './types.ts';
