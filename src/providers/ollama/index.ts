export {
  createOllamaAdapter,
  DEFAULT_OLLAMA_HOST,
  DEFAULT_OLLAMA_PORT,
  normalizeOllamaHost,
  type OllamaAdapterOptions,
} from './ollama-adapter.ts';
export type { OllamaThink } from './to-wire.ts';
