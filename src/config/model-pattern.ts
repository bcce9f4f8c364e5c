/**
 * "provider:model" (openai:gpt-4o-mini, openai:qwen2.5:7b, scripted:./demo.json). Kept apart from the schema so
 * checking a --model flag does not load zod.
 */
export const MODEL_PATTERN = /^[a-z][a-z0-9-]*:.+$/;
