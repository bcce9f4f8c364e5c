export { createOpenAIAdapter, DEFAULT_OPENAI_BASE_URL, type OpenAIAdapterOptions } from './openai-adapter.ts';
export {
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
} from '../shared/limits.ts';
