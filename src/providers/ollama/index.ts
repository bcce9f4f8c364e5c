export { createOllamaAdapter, DEFAULT_OLLAMA_HOST, DEFAULT_OLLAMA_PORT, normalizeOllamaHost, type OllamaAdapterOptions } from './ollama-adapter.ts';
export type { OllamaThink } from './to-wire.ts';
export {
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
} from '../shared/limits.ts';
