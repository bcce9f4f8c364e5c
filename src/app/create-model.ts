import { resolve } from 'node:path';
import { closestName, ToolgateError, type ModelAdapter } from '../core/index.ts';
import { knownProviders, SCRIPTED_PROVIDER } from '../config/providers.ts';
import type {
  AnthropicProviderEntry,
  OllamaProviderEntry,
  OpenAIProviderEntry,
  ProviderConfig,
} from '../config/providers-schema.ts';
import type { AnthropicAdapterOptions } from '../providers/anthropic/anthropic-adapter.ts';
import type { OllamaAdapterOptions } from '../providers/ollama/ollama-adapter.ts';
import type { OpenAIAdapterOptions } from '../providers/openai/openai-adapter.ts';
import { withEstimatedUsage } from '../providers/shared/estimate-usage.ts';
import { endpointProblem, resolveProviders } from '../config/resolve-settings.ts';
import { withoutUndefined } from '../core/without-undefined.ts';

export interface CreateModelOptions {
  /** "provider:model". */
  model: string;
  /**
   * Model APIs by name, types resolved (Settings.providers). Without it, the
   * built-ins from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST…).
   */
  providers?: Readonly<Record<string, ProviderConfig>>;
  /** Where relative script paths are resolved. */
  cwd?: string;
}

// Every config key of a provider type must be an option of its adapter: a key added to one and not the other fails to
// compile.
type KeysFit<Entry, Options> = Exclude<keyof Entry, 'type'> extends keyof Options ? true : never;
const FITS: [
  KeysFit<OpenAIProviderEntry, OpenAIAdapterOptions>,
  KeysFit<AnthropicProviderEntry, AnthropicAdapterOptions>,
  KeysFit<OllamaProviderEntry, OllamaAdapterOptions>,
] = [true, true, true];
void FITS;

/**
 * Picks the adapter for a "provider:model" id: a built-in provider, a named
 * endpoint from `providers:`, or a script. The only place providers are
 * named. Each provider's code is loaded when first used, so a process pays
 * only for the providers it talks to. Usage a provider leaves out is
 * estimated (withEstimatedUsage), whichever provider it is.
 */
export async function createModel(options: CreateModelOptions): Promise<ModelAdapter> {
  return withEstimatedUsage(await createProviderModel(options));
}

async function createProviderModel(options: CreateModelOptions): Promise<ModelAdapter> {
  const colon = options.model.indexOf(':');
  const provider = colon < 0 ? options.model : options.model.slice(0, colon);
  const name = colon < 0 ? '' : options.model.slice(colon + 1);
  if (name === '')
    throw new ToolgateError(
      'usage',
      `model "${options.model}" must be "provider:model", e.g. ` +
        `openai:gpt-4o-mini, anthropic:claude-sonnet-4-5 or ollama:qwen2.5:7b`,
    );
  if (provider === SCRIPTED_PROVIDER) {
    const file = resolve(options.cwd ?? process.cwd(), name);
    const [{ createScriptedAdapter }, { loadScript }] = await Promise.all([
      import('../providers/scripted/scripted-adapter.ts'),
      import('../providers/scripted/load-script.ts'),
    ]);
    return createScriptedAdapter({ script: await loadScript(file), id: options.model });
  }
  const providers = options.providers ?? resolveProviders({}, process.env);
  const entry = providers[provider];
  if (entry === undefined) {
    const known = knownProviders(providers);
    const close = closestName(provider, known);
    throw new ToolgateError(
      'usage',
      `unknown model provider "${provider}" in ` +
        (`"${options.model}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; ` +
          `known providers: ${known.join(', ')}. `) +
        (`Another OpenAI-compatible server (vLLM, llama.cpp, LM Studio, DeepSeek, OpenRouter…) is ` +
          `declared under providers:, e.g. ${provider}: {type: openai, baseUrl: http://localhost:8000/v1}`),
    );
  }
  const problem = endpointProblem(provider, entry);
  if (problem !== undefined) throw new ToolgateError('usage', problem);
  // Adapter options are exact: the entry goes without `type` and without keys set to undefined.
  switch (entry.type) {
    case 'openai': {
      const { type: _type, ...settings } = entry;
      const { createOpenAIAdapter } = await import('../providers/openai/openai-adapter.ts');
      return createOpenAIAdapter({ ...withoutUndefined(settings), model: name, provider });
    }
    case 'anthropic': {
      const { type: _type, ...settings } = entry;
      const { createAnthropicAdapter } = await import('../providers/anthropic/anthropic-adapter.ts');
      return createAnthropicAdapter({ ...withoutUndefined(settings), model: name, provider });
    }
    case 'ollama': {
      const { type: _type, ...settings } = entry;
      const { createOllamaAdapter } = await import('../providers/ollama/ollama-adapter.ts');
      return createOllamaAdapter({ ...withoutUndefined(settings), model: name, provider });
    }
  }
}
