import type { ModelAdapter } from '../../core/ports/model-adapter.ts';
import { withoutUndefined } from '../../core/without-undefined.ts';
import { keyedEndpoint } from '../shared/api-key.ts';
import { defineHttpAdapter, type HttpProviderOptions } from '../shared/define-http-adapter.ts';
import { parseStreamData, SSE_FRAMING } from '../shared/event-framing.ts';
import { httpError, isQuotaGone, OPENAI_KEY_VARIABLE, RETRYABLE_STATUSES } from './errors.ts';
import { parseCompletion } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBodyText } from './to-wire.ts';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
const HOSTED = {
  builtIn: 'openai',
  variable: OPENAI_KEY_VARIABLE,
  url: DEFAULT_OPENAI_BASE_URL,
  header: 'authorization',
};

export interface OpenAIAdapterOptions extends HttpProviderOptions {
  /** The API root, ending where `/chat/completions` is appended (e.g. http://localhost:11434/v1). */
  baseUrl?: string;
}

/**
 * A ModelAdapter for any OpenAI-compatible `/chat/completions` endpoint, over
 * undici (or a given fetch). The key goes as a Bearer token; `extraBody` holds
 * fields such as top_p or chat_template_kwargs.
 */
export function createOpenAIAdapter(options: OpenAIAdapterOptions): ModelAdapter {
  const { model, apiKey } = options;
  const { provider, baseUrl, url, keySent, refuse } = keyedEndpoint({
    hosted: HOSTED,
    options,
    path: '/chat/completions',
  });
  const wireOptions = withoutUndefined({ extraBody: options.extraBody });
  return defineHttpAdapter({
    provider,
    url,
    options,
    refuse,
    headers: apiKey === undefined || apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` },
    body: (request) => toWireBodyText({ model, request, ...wireOptions }),
    whole: {
      expected: 'a JSON chat completion',
      hint: 'check that the base URL points at an OpenAI-compatible API root',
    },
    readWhole: parseCompletion,
    framing: SSE_FRAMING,
    assembler: (assembly) => new StreamAssembler(assembly),
    readEvent: (event, assembler) => {
      // The last event; the usage chunk comes before it, after finish_reason.
      if (event.data.trim() === '[DONE]') assembler.end();
      else assembler.push(parseStreamData(event.data, { url, what: "an event's data" }));
    },
    unfinished: 'no finish_reason and no [DONE]',
    retryable: ({ status, bodyText }) => RETRYABLE_STATUSES.has(status) && !(status === 429 && isQuotaGone(bodyText)),
    httpError: ({ status, bodyText, attempts }) =>
      httpError({ status, bodyText, url, baseUrl, model, attempts, provider, keySent }),
  });
}
