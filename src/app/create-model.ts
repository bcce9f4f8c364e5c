import { resolve } from 'node:path';
import { ToolgateError, type ModelAdapter } from '../core/index.ts';
import type { OpenAISettings } from '../config/resolve-settings.ts';

export const PROVIDERS = ['openai', 'scripted'] as const;

export interface CreateModelOptions {
  /** "provider:model". */
  model: string;
  openai?: OpenAISettings;
  /** Where relative script paths are resolved. */
  cwd?: string;
}

/**
 * Picks the adapter for a "provider:model" id. The only place providers are
 * named. Each provider's code is loaded when first used, so a process pays
 * only for the providers it talks to.
 */
export async function createModel(options: CreateModelOptions): Promise<ModelAdapter> {
  const colon = options.model.indexOf(':');
  const provider = colon < 0 ? options.model : options.model.slice(0, colon);
  const name = colon < 0 ? '' : options.model.slice(colon + 1);
  if (name === '') throw new ToolgateError('usage', `model "${options.model}" must be "provider:model", e.g. openai:gpt-4o-mini`);
  switch (provider) {
    case 'openai': {
      const s = options.openai ?? {};
      const { createOpenAIAdapter } = await import('../providers/openai/openai-adapter.ts');
      return createOpenAIAdapter({
        model: name,
        ...(s.baseUrl === undefined ? {} : { baseUrl: s.baseUrl }),
        ...(s.apiKey === undefined ? {} : { apiKey: s.apiKey }),
        ...(s.headers === undefined ? {} : { headers: s.headers }),
        ...(s.timeoutMs === undefined ? {} : { timeoutMs: s.timeoutMs }),
        ...(s.maxRetries === undefined ? {} : { maxRetries: s.maxRetries }),
        ...(s.maxResponseBytes === undefined ? {} : { maxResponseBytes: s.maxResponseBytes }),
        ...(s.maxStreamBytes === undefined ? {} : { maxStreamBytes: s.maxStreamBytes }),
        ...(s.maxEventBytes === undefined ? {} : { maxEventBytes: s.maxEventBytes }),
        ...(s.maxToolCalls === undefined ? {} : { maxToolCalls: s.maxToolCalls }),
      });
    }
    case 'scripted': {
      const file = resolve(options.cwd ?? process.cwd(), name);
      const [{ createScriptedAdapter }, { loadScript }] = await Promise.all([
        import('../providers/scripted/scripted-adapter.ts'),
        import('../providers/scripted/load-script.ts'),
      ]);
      return createScriptedAdapter({ script: await loadScript(file), id: options.model });
    }
    default:
      throw new ToolgateError(
        'usage',
        `unknown model provider "${provider}" in "${options.model}"; known providers: ${PROVIDERS.join(', ')} (any OpenAI-compatible server — Ollama, vLLM, llama.cpp, LM Studio, DeepSeek, OpenRouter… — is "openai:<model>" with --base-url)`,
      );
  }
}
