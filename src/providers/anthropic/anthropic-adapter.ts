import { ToolgateError } from '../../core/errors.ts';
import { parseJson } from '../../core/parse-json.ts';
import type { GenerateOptions, ModelAdapter, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import { readLimits, type ReadLimitOptions } from '../shared/limits.ts';
import { readStreamedAnswer, readWholeAnswer, refuseErrorBody } from '../shared/read-answer.ts';
import { httpPostFor, type HttpAnswer } from '../shared/http-post.ts';
import { callWithRetries, requestHeaders, type RetryPolicy } from '../shared/request-loop.ts';
import { readSseEvents, type SseEvent } from '../shared/sse-reader.ts';
import { asObject } from '../shared/wire.ts';
import { missingKeyError, sendsKey } from '../shared/api-key.ts';
import { ANTHROPIC_KEY_VARIABLE, httpError, shouldRetry } from './errors.ts';
import { parseMessage } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBodyText } from './to-wire.ts';

export { DEFAULT_ANTHROPIC_MAX_TOKENS } from './to-wire.ts';

/** The API root as the official SDK takes it: without /v1. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicAdapterOptions extends RetryPolicy, ReadLimitOptions {
  model: string;
  /** The config key this endpoint is named by (default anthropic): the adapter's id is `<provider>:<model>`. */
  provider?: string;
  /** The API root without /v1 (e.g. https://api.anthropic.com); requests go to `<baseUrl>/v1/messages`. */
  baseUrl?: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** The `anthropic-version` header. */
  version?: string;
  /** max_tokens when a request sets none (the API requires one). */
  maxTokens?: number;
  /** Extended thinking with this budget; max_tokens is raised above it when needed, and no temperature is sent. */
  thinking?: { budgetTokens: number };
  fetch?: typeof fetch;
  /** Provider-specific body fields (top_k, metadata…), merged last. */
  extraBody?: Record<string, unknown>;
}

/** A ModelAdapter for Anthropic's Messages API (`POST /v1/messages`), over node:http (or a given fetch). */
export function createAnthropicAdapter(options: AnthropicAdapterOptions): ModelAdapter {
  const provider = options.provider ?? 'anthropic';
  const baseUrl = (options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, '');
  const url = `${baseUrl}/v1/messages`;
  const keySent = sendsKey(options.apiKey, options.headers, 'x-api-key');
  // The hosted API always wants a key; a fetch of the caller's own may add it (a proxy, a signer), so only toolgate's own requests are checked.
  const needsKeyFirst = !keySent && options.fetch === undefined && baseUrl === DEFAULT_ANTHROPIC_BASE_URL;
  const keySource = { provider, builtIn: 'anthropic', variable: ANTHROPIC_KEY_VARIABLE };
  const post = httpPostFor(options.fetch);
  const { maxResponseBytes, maxStreamBytes, maxEventBytes, maxToolCalls } = readLimits(options);
  const rootHint = `check that the base URL is the API root without /v1, e.g. ${DEFAULT_ANTHROPIC_BASE_URL}`;

  const readAnswer = async (input: { response: HttpAnswer; request: ModelRequest; generate: GenerateOptions; signal: AbortSignal }): Promise<ModelResponse> => {
    const { response, request, generate, signal } = input;
    const contentType = response.headers.get('content-type') ?? '';
    // Only a streaming request shows deltas, whatever the server chose to send.
    if (contentType.includes('text/event-stream')) return readStream(response, request.stream ? generate : {}, signal);
    // Non-streaming, or a proxy that answered `stream: true` with one JSON body.
    return readWholeAnswer({ response, signal, url, provider, maxBytes: maxResponseBytes, request, generate, parse: (text) => parseJsonMessage(text, contentType) });
  };

  const parseJsonMessage = (text: string, contentType: string): ModelResponse => {
    let json: unknown;
    try {
      // parseJson, not JSON.parse: tool_use `input` is an object whose keys must arrive unchanged.
      json = parseJson(text);
    } catch {
      throw new ToolgateError('model_error', `expected a JSON message from ${url} but got ${contentType || 'no content type'}: ${JSON.stringify(text.slice(0, 200))}; ${rootHint}`);
    }
    refuseErrorBody(json, text, url, asObject(json)?.['type'] === 'error');
    return parseMessage(json, { url, maxToolCalls, provider });
  };

  const readStream = async (response: HttpAnswer, generate: GenerateOptions, signal: AbortSignal): Promise<ModelResponse> => {
    const body = response.body;
    if (body === null) throw new ToolgateError('model_error', `${url} sent an event stream with no body`);
    const assembler = new StreamAssembler({ maxToolCalls, provider, ...(generate.onTextDelta === undefined ? {} : { onTextDelta: generate.onTextDelta }) });
    return readStreamedAnswer<SseEvent>({
      // After message_stop the reader drains the body's end, so the connection is reused.
      read: (each) => readSseEvents(body, { maxEventBytes, maxBytes: maxStreamBytes, signal, provider, finished: () => assembler.finished }, each),
      each: (event) => {
        let data: unknown;
        try {
          data = parseJson(event.data);
        } catch {
          throw new ToolgateError('model_error', `malformed stream from ${url}: the data of a ${event.event} event is not JSON: ${JSON.stringify(event.data.slice(0, 200))}`);
        }
        assembler.push(event.event, data);
      },
      assembler,
      signal,
      unfinished: 'no message_stop',
    });
  };

  return {
    id: `${provider}:${options.model}`,
    generate(request: ModelRequest, generate: GenerateOptions = {}): Promise<ModelResponse> {
      if (needsKeyFirst) return Promise.reject(missingKeyError({ ...keySource, model: options.model, baseUrl }));
      return callWithRetries({
        url,
        provider,
        post,
        policy: options,
        signal: generate.signal,
        request: () => {
          const headers = requestHeaders(
            {
              'content-type': 'application/json',
              accept: request.stream ? 'text/event-stream' : 'application/json',
              'anthropic-version': options.version ?? DEFAULT_ANTHROPIC_VERSION,
              ...(options.apiKey === undefined || options.apiKey === '' ? {} : { 'x-api-key': options.apiKey }),
            },
            options.headers,
          );
          const body = toWireBodyText({
            model: options.model,
            request,
            ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
            ...(options.thinking === undefined ? {} : { thinking: options.thinking }),
            ...(options.extraBody === undefined ? {} : { extraBody: options.extraBody }),
          });
          return { headers, body };
        },
        retryable: (status, bodyText, headers) => shouldRetry({ status, bodyText, shouldRetryHeader: headers.get('x-should-retry') }),
        httpError: ({ status, bodyText, attempts }) => httpError({ status, bodyText, url, baseUrl, model: options.model, attempts, provider, keySent }),
        read: (response, signal) => readAnswer({ response, request, generate, signal }),
      });
    },
  };
}
