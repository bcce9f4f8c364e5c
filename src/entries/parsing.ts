// `toolgate/parsing`: tool calls read from a model's output, formats as data, chat templates (docs/parsing.md).
export { parseModelMessage, parseModelText, toolRefsFrom } from '../app/parse-text.ts';
export type { AssistantMessageInput, ExtractionResult, NativeToolCall, ToolRef } from '../app/parse-text.ts';
export { BUILTIN_FORMATS, checkCallFormat, renderCall } from '../parsing/index.ts';
export type { ArgumentGrammar, CallFormat, CallFormatCheck, NameSlot, XmlParameters } from '../parsing/index.ts';
export { deriveFormat, type DeriveOptions, type DeriveResult } from '../parsing/templates/derive-format.ts';
export { renderAssistantCalls, type RenderCallsResult } from '../parsing/templates/render-assistant-calls.ts';
export { explainFormat } from '../parsing/templates/explain-format.ts';
export {
  loadChatTemplate,
  type LoadChatTemplateOptions,
  type LoadedChatTemplate,
} from '../app/chat-template-source.ts';
