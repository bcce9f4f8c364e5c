/**
 * What the rest of toolgate needs to know about providers without loading the
 * config schema (and zod): the built-in types, the names a model id may use,
 * and the checks that run when a model is made.
 */
import { didYouMean } from '../core/index.ts';
import { isOneOf } from '../core/is-one-of.ts';

export const PROVIDER_TYPES = ['openai', 'anthropic', 'ollama'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
/** Built in, with no settings: a JSON script file (`scripted:./demo.json`). */
export const SCRIPTED_PROVIDER = 'scripted';
/** The provider part of a model id: a name usable as a config key and before the first colon. */
export const PROVIDER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export function isProviderType(name: string): name is ProviderType {
  return isOneOf(PROVIDER_TYPES, name);
}

/**
 * Why an Ollama host cannot be used, or undefined. Accepts what OLLAMA_HOST accepts: a bare host, host:port, or a URL.
 */
export function ollamaHostProblem(value: string): string | undefined {
  const text = value.trim();
  const example = 'e.g. http://127.0.0.1:11434 or gpu-box:11434';
  if (text === '' || /\s/.test(text)) return `must be a host or URL without spaces, ${example}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (scheme !== undefined && !/^https?$/i.test(scheme))
    return `must use http:// or https:// (got ${scheme}://), ${example}`;
  try {
    new URL(scheme === undefined ? `http://${text}` : text);
  } catch {
    return `is not a valid host or URL, ${example}`;
  }
  return undefined;
}

/** The type a provider name has: its own for a built-in name, else the entry's `type`. */
export function providerTypeOf(name: string, entry: unknown): ProviderType | undefined {
  if (isProviderType(name)) return name;
  const type = typeof entry === 'object' && entry !== null && 'type' in entry ? entry.type : undefined;
  return typeof type === 'string' && isProviderType(type) ? type : undefined;
}

/** Every provider a model id may name: the built-ins, scripted, and the configured endpoints. */
export function knownProviders(configured: Readonly<Record<string, unknown>> | undefined): string[] {
  return [...new Set([...PROVIDER_TYPES, SCRIPTED_PROVIDER, ...Object.keys(configured ?? {})])];
}

/** The provider part of a model id ("vllm" in "vllm:Qwen/…"): before the first colon; '' when there is none. */
export function providerOf(model: string): string {
  const colon = model.indexOf(':');
  return colon <= 0 ? '' : model.slice(0, colon);
}

/** The environment variables a built-in provider reads, as its own clients do; named endpoints read none. */
export const PROVIDER_ENV = {
  openai: { endpoint: 'OPENAI_BASE_URL', apiKey: 'OPENAI_API_KEY' },
  anthropic: { endpoint: 'ANTHROPIC_BASE_URL', apiKey: 'ANTHROPIC_API_KEY' },
  ollama: { endpoint: 'OLLAMA_HOST', apiKey: undefined },
} as const;

/** The variable holding a provider's key, when it has one. */
export function apiKeyVariable(provider: string): string | undefined {
  return isProviderType(provider) ? PROVIDER_ENV[provider].apiKey : undefined;
}

/** Why a model id or pattern names no known provider, or undefined. */
export function unknownProviderProblem(
  model: string,
  configured: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const provider = providerOf(model);
  if (provider === '') return undefined;
  const known = knownProviders(configured);
  if (known.includes(provider)) return undefined;
  return (
    `unknown provider "${provider}" in "${model}"${didYouMean(provider, known)}; known providers: ` +
    (`${known.join(', ')} (declare another endpoint under providers:, ` +
      `e.g. ${provider}: {type: openai, baseUrl: http://localhost:8000/v1})`)
  );
}
