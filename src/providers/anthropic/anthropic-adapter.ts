import { parseJson } from '../../core/parse-json.ts';
import type { ModelAdapter } from '../../core/ports/model-adapter.ts';
import { withoutUndefined } from '../../core/without-undefined.ts';
import { keyedEndpoint } from '../shared/api-key.ts';
import { defineHttpAdapter, type HttpProviderOptions } from '../shared/define-http-adapter.ts';
import { parseStreamData, SSE_FRAMING } from '../shared/event-framing.ts';
import { asObject } from '../shared/wire.ts';
import { ANTHROPIC_KEY_VARIABLE, httpError, shouldRetry } from './errors.ts';
import { parseMessage } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBodyText } from './to-wire.ts';

export { DEFAULT_ANTHROPIC_MAX_TOKENS } from './to-wire.ts';

/** The API root as the official SDK takes it: without /v1. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
const HOSTED = {
  builtIn: 'anthropic',
  variable: ANTHROPIC_KEY_VARIABLE,
  url: DEFAULT_ANTHROPIC_BASE_URL,
  header: 'x-api-key',
};

export interface AnthropicAdapterOptions extends HttpProviderOptions {
  /** The API root without /v1 (e.g. https://api.anthropic.com); requests go to `<baseUrl>/v1/messages`. */
  baseUrl?: string;
  /** The `anthropic-version` header. */
  version?: string;
  /** max_tokens when a request sets none (the API requires one). */
  maxTokens?: number;
  /** Extended thinking with this budget; max_tokens is raised above it when needed, and no temperature is sent. */
  thinking?: { budgetTokens: number };
}

/**
 * A ModelAdapter for Anthropic's Messages API (`POST /v1/messages`), over
 * undici (or a given fetch). The key goes as `x-api-key`; `extraBody` holds
 * fields such as top_k or metadata.
 */
export function createAnthropicAdapter(options: AnthropicAdapterOptions): ModelAdapter {
  const { model, apiKey } = options;
  const { provider, baseUrl, url, keySent, refuse } = keyedEndpoint({ hosted: HOSTED, options, path: '/v1/messages' });
  const wireOptions = withoutUndefined({
    maxTokens: options.maxTokens,
    thinking: options.thinking,
    extraBody: options.extraBody,
  });
  return defineHttpAdapter({
    provider,
    url,
    options,
    refuse,
    headers: {
      'anthropic-version': options.version ?? DEFAULT_ANTHROPIC_VERSION,
      ...(apiKey === undefined || apiKey === '' ? {} : { 'x-api-key': apiKey }),
    },
    body: (request) => toWireBodyText({ model, request, ...wireOptions }),
    whole: {
      expected: 'a JSON message',
      hint: `check that the base URL is the API root without /v1, e.g. ${DEFAULT_ANTHROPIC_BASE_URL}`,
      // parseJson, not JSON.parse: tool_use `input` is an object whose keys must arrive unchanged.
      parse: parseJson,
      isError: (json) => asObject(json)?.['type'] === 'error',
    },
    readWhole: parseMessage,
    framing: SSE_FRAMING,
    assembler: (assembly) => new StreamAssembler(assembly),
    readEvent: (event, assembler) =>
      assembler.push(
        event.event,
        parseStreamData(event.data, { url, what: `the data of a ${event.event} event`, parse: parseJson }),
      ),
    unfinished: 'no message_stop',
    retryable: ({ status, bodyText, headers }) =>
      shouldRetry({ status, bodyText, shouldRetryHeader: headers.get('x-should-retry') }),
    httpError: ({ status, bodyText, attempts }) =>
      httpError({ status, bodyText, url, baseUrl, model, attempts, provider, keySent }),
  });
}
