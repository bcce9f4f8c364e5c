export {
  createAnthropicAdapter,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_ANTHROPIC_VERSION,
  type AnthropicAdapterOptions,
} from './anthropic-adapter.ts';
