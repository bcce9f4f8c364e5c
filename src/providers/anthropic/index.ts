export {
  createAnthropicAdapter,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_ANTHROPIC_VERSION,
  type AnthropicAdapterOptions,
} from './anthropic-adapter.ts';
export {
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
} from '../shared/limits.ts';
