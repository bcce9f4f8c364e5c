import { ToolgateError } from '../../core/errors.ts';

export interface KeySourceOptions {
  /** The config key of the endpoint: a built-in name (openai, anthropic) or a named endpoint. */
  provider: string;
  /** The built-in provider this endpoint is, whose variable holds its key. */
  builtIn: string;
  /** That variable, e.g. OPENAI_API_KEY. */
  variable: string;
}

/** Where this endpoint's key comes from, in the words of a person who must set it. */
export function keySources(options: KeySourceOptions): string {
  return options.provider === options.builtIn ? `${options.variable}, --api-key or providers.${options.provider}.apiKey` : `providers.${options.provider}.apiKey (or --api-key)`;
}

/** Whether a request carries credentials: the key, or a header the operator set for them. */
export function sendsKey(apiKey: string | undefined, headers: Readonly<Record<string, string>> | undefined, header: string): boolean {
  if (apiKey !== undefined && apiKey !== '') return true;
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === header || name.toLowerCase() === 'authorization');
}

/** What a 401/403 adds when no key was sent: which one is missing, by name. */
export function noKeySentHint(options: KeySourceOptions): string {
  const unset = options.provider === options.builtIn ? `${options.variable} is not set` : `providers.${options.provider}.apiKey is not set`;
  return `no API key was sent: ${unset}; set ${keySources(options)}`;
}

/**
 * The provider's own hosted API always needs a key: without one the run fails
 * at once, naming the variable, instead of after a round trip (or, offline,
 * after connection retries that never mention the key).
 */
export function missingKeyError(options: KeySourceOptions & { model: string; baseUrl: string }): ToolgateError {
  const unset = options.provider === options.builtIn ? `${options.variable} is not set` : `providers.${options.provider}.apiKey is not set`;
  const elsewhere = options.provider === options.builtIn && options.builtIn === 'openai' ? '; for a server that needs no key (Ollama, vLLM, llama.cpp…) set --base-url or OPENAI_BASE_URL' : '';
  return new ToolgateError('model_auth', `${options.provider}:${options.model} needs an API key for ${options.baseUrl} and none is set: ${unset}. Set ${keySources(options)}${elsewhere}`);
}
