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
  return options.provider === options.builtIn
    ? `${options.variable}, --api-key or providers.${options.provider}.apiKey`
    : `providers.${options.provider}.apiKey (or --api-key)`;
}

/** Whether a request carries credentials: the key, or a header the operator set for them. */
export function sendsKey(
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>> | undefined,
  header: string,
): boolean {
  if (apiKey !== undefined && apiKey !== '') return true;
  return Object.keys(headers ?? {}).some(
    (name) => name.toLowerCase() === header || name.toLowerCase() === 'authorization',
  );
}

/** What a 401/403 adds when no key was sent: which one is missing, by name. */
export function noKeySentHint(options: KeySourceOptions): string {
  const unset =
    options.provider === options.builtIn
      ? `${options.variable} is not set`
      : `providers.${options.provider}.apiKey is not set`;
  return `no API key was sent: ${unset}; set ${keySources(options)}`;
}

/**
 * The provider's own hosted API always needs a key: without one the run fails
 * at once, naming the variable, instead of after a round trip (or, offline,
 * after connection retries that never mention the key).
 */
export function missingKeyError(options: KeySourceOptions & { model: string; baseUrl: string }): ToolgateError {
  const unset =
    options.provider === options.builtIn
      ? `${options.variable} is not set`
      : `providers.${options.provider}.apiKey is not set`;
  const elsewhere =
    options.provider === options.builtIn && options.builtIn === 'openai'
      ? '; for a server that needs no key (Ollama, vLLM, llama.cpp…) set --base-url or OPENAI_BASE_URL'
      : '';
  return new ToolgateError(
    'model_auth',
    `${options.provider}:${options.model} needs an API key for ${options.baseUrl} ` +
      `and none is set: ${unset}. Set ${keySources(options)}${elsewhere}`,
  );
}

/** A provider's own hosted API, which always wants a key. */
export interface HostedApi {
  /** The built-in provider (openai, anthropic): the default config key. */
  builtIn: string;
  /** The variable that holds its key, e.g. OPENAI_API_KEY. */
  variable: string;
  /** Its API root, the default base URL. */
  url: string;
  /** The header that carries the key (lower case): authorization, x-api-key. */
  header: string;
}

export interface KeyedEndpointInput {
  hosted: HostedApi;
  options: {
    model: string;
    provider?: string;
    baseUrl?: string;
    apiKey?: string;
    headers?: Readonly<Record<string, string>>;
    fetch?: typeof fetch;
  };
  /** Appended to the base URL: where requests go. */
  path: string;
}

export interface KeyedEndpoint {
  provider: string;
  baseUrl: string;
  url: string;
  /** Whether requests carry a key (a 401's hint says which one is missing when not). */
  keySent: boolean;
  /** For the hosted API called without a key: the error every call fails with at once, before any request. */
  refuse: (() => ToolgateError) | undefined;
}

/**
 * Where an endpoint of a keyed API is and whether it is called with a key. A
 * fetch of the caller's own may add the key itself (a proxy, a signer), so only
 * toolgate's own requests are refused for the lack of one.
 */
export function keyedEndpoint(input: KeyedEndpointInput): KeyedEndpoint {
  const { hosted, options } = input;
  const provider = options.provider ?? hosted.builtIn;
  const baseUrl = (options.baseUrl ?? hosted.url).replace(/\/+$/, '');
  const endpoint = { provider, baseUrl, url: `${baseUrl}${input.path}` };
  const keySent = sendsKey(options.apiKey, options.headers, hosted.header);
  if (keySent || options.fetch !== undefined || baseUrl !== hosted.url)
    return { ...endpoint, keySent, refuse: undefined };
  const refuse = (): ToolgateError =>
    missingKeyError({ provider, builtIn: hosted.builtIn, variable: hosted.variable, model: options.model, baseUrl });
  return { ...endpoint, keySent, refuse };
}
