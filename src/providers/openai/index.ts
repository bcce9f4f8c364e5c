export { createOpenAIAdapter, DEFAULT_OPENAI_BASE_URL, type OpenAIAdapterOptions } from './openai-adapter.ts';
