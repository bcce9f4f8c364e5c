/**
 * src/parsing: reading tool calls out of model output. Pure (no I/O); imports
 * only src/core and jsonrepair.
 *
 * - extractFromMessage({text?, reasoning?, toolCalls?, finishReason?, truncated?, tools})
 *   → {calls, content, diagnostics}: a whole assistant message — native calls
 *   (arguments repaired like text calls), calls in the text, a call left at the
 *   end of the reasoning; names cleaned, values typed by the tools' schemas.
 * - extractToolCalls(text, {tools, truncated?}) → {calls, content, diagnostics}:
 *   calls in any envelope small/local models use (Hermes/Qwen tags, Qwen3-Coder
 *   and GLM XML, Mistral [TOOL_CALLS], Llama python_tag/function tags/pythonic,
 *   DeepSeek and MiniMax tokens, fences, bare JSON in prose), repaired when
 *   needed, with precision rules (declared tools only, examples and cut calls
 *   are diagnostics, never calls). Never throws; linear time.
 * - repairJson(text) / repairArguments(raw) / readArgumentObjects(raw): JSON and
 *   native `arguments` strings (several objects in a row: one per call).
 * - typeBySchema(args, schema): strings holding the array or object a schema asks for, read.
 *   Limits (docs/parsing.md): arguments longer than DEFAULT_MAX_ARGUMENTS_CHARS,
 *   nested deeper than core's DEFAULT_MAX_JSON_DEPTH, with more values than
 *   DEFAULT_MAX_JSON_NODES or a number out of range are refused, never thrown.
 * - createStreamFilter(): which streamed text is safe to show before the turn ends.
 * - renderToolPrompt / toolCallJsonSchema: prompted tool mode and structured output.
 * - formatParseFeedback: what to tell a model whose call could not be used.
 * Diagnostic codes (PARSE_DIAGNOSTIC_CODES) and repair kinds (REPAIR_KINDS) are closed sets.
 */
export { extractToolCalls } from './extract-tool-calls.ts';
export { extractFromMessage, extractMessageDetailed } from './extract-message.ts';
export type { MessageExtraction } from './extract-message.ts';
export { parseToolCall, turnCalls, type TurnCall } from './parse-tool-call.ts';
export { cleanToolName, closestTool } from './tool-names.ts';
export { repairJson } from './repair-json.ts';
export type { RepairJsonResult } from './repair-json.ts';
export { DEFAULT_MAX_ARGUMENTS_CHARS, readArgumentObjects, repairArguments } from './repair-arguments.ts';
export type {
  ArgumentObjectsResult,
  ArgumentsFailureReason,
  RepairArgumentsOptions,
  RepairArgumentsResult,
} from './repair-arguments.ts';
export { typeBySchema } from './type-by-schema.ts';
export type { SchemaTypingChange, SchemaTypingResult } from './type-by-schema.ts';
export { createStreamFilter } from './stream-filter.ts';
export { withoutReasoning } from './envelopes/think.ts';
export { envelopeFamily } from './envelope-family.ts';
export type { StreamFilter, StreamFilterOptions } from './stream-filter.ts';
export { renderToolPrompt, toolCallJsonSchema, TOOL_CALL_FORMAT } from './tool-prompt.ts';
export type { PromptTool, ToolCallSchemaOptions, ToolPromptOptions } from './tool-prompt.ts';
export { formatParseFeedback } from './feedback.ts';
export { checkCallFormat } from './formats/check-call-format.ts';
export type { CallFormatCheck } from './formats/check-call-format.ts';
export { findFormatCalls } from './formats/find-format-calls.ts';
export { BUILTIN_FORMATS } from './formats/builtin-formats.ts';
export { renderCall } from './formats/render-call.ts';
export { sniffArguments } from './formats/read-arguments.ts';
export type { ArgumentGrammar, CallFormat, NameSlot, XmlParameters } from './formats/call-format.ts';
export type { ParseFeedbackInput } from './feedback.ts';
export { CALL_FAILURE_CODES, PARSE_DIAGNOSTIC_CODES, REPAIR_KINDS } from './types.ts';
export type {
  AssistantMessageInput,
  ExtractOptions,
  NativeToolCall,
  ExtractedCall,
  ExtractionResult,
  ParseDiagnostic,
  ParseDiagnosticCode,
  RepairKind,
  Span,
  ToolRef,
} from './types.ts';
