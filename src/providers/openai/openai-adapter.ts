import { ToolgateError } from '../../core/errors.ts';
import type { GenerateOptions, ModelAdapter, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import { readLimits, type ReadLimitOptions } from '../shared/limits.ts';
import { readStreamedAnswer, readWholeAnswer, refuseErrorBody } from '../shared/read-answer.ts';
import { httpPostFor, type HttpAnswer } from '../shared/http-post.ts';
import { callWithRetries, requestHeaders, type RetryPolicy } from '../shared/request-loop.ts';
import { readSseEvents, type SseEvent } from '../shared/sse-reader.ts';
import { missingKeyError, sendsKey } from '../shared/api-key.ts';
import { httpError, isQuotaGone, OPENAI_KEY_VARIABLE, RETRYABLE_STATUSES } from './errors.ts';
import { parseCompletion } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBodyText } from './to-wire.ts';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIAdapterOptions extends RetryPolicy, ReadLimitOptions {
  model: string;
  /** The config key this endpoint is named by (default openai): the adapter's id is `<provider>:<model>`. */
  provider?: string;
  /** The API root, ending where `/chat/completions` is appended (e.g. http://localhost:11434/v1). */
  baseUrl?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Provider-specific body fields (top_p, chat_template_kwargs…), merged last. */
  extraBody?: Record<string, unknown>;
}

/** A ModelAdapter for any OpenAI-compatible `/chat/completions` endpoint, over node:http (or a given fetch). */
export function createOpenAIAdapter(options: OpenAIAdapterOptions): ModelAdapter {
  const provider = options.provider ?? 'openai';
  const baseUrl = (options.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
  const url = `${baseUrl}/chat/completions`;
  const post = httpPostFor(options.fetch);
  const { maxResponseBytes, maxStreamBytes, maxEventBytes, maxToolCalls } = readLimits(options);
  const keySent = sendsKey(options.apiKey, options.headers, 'authorization');
  // The hosted API always wants a key; a fetch of the caller's own may add it (a proxy, a signer), so only toolgate's own requests are checked.
  const needsKeyFirst = !keySent && options.fetch === undefined && baseUrl === DEFAULT_OPENAI_BASE_URL;
  const keySource = { provider, builtIn: 'openai', variable: OPENAI_KEY_VARIABLE };

  const readAnswer = async (input: { response: HttpAnswer; request: ModelRequest; generate: GenerateOptions; signal: AbortSignal }): Promise<ModelResponse> => {
    const { response, request, generate, signal } = input;
    const contentType = response.headers.get('content-type') ?? '';
    // Some proxies stream whatever was asked; the reader copes either way, and only a streaming request shows deltas.
    if (contentType.includes('text/event-stream')) return readStream(response, request.stream ? generate : {}, signal);
    // Non-streaming, or a server that ignored `stream: true` and answered with one JSON body.
    return readWholeAnswer({ response, signal, url, provider, maxBytes: maxResponseBytes, request, generate, parse: (text) => parseJsonCompletion(text, contentType) });
  };

  const parseJsonCompletion = (text: string, contentType: string): ModelResponse => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ToolgateError(
        'model_error',
        `expected a JSON chat completion from ${url} but got ${contentType || 'no content type'}: ${JSON.stringify(text.slice(0, 200))}; check that the base URL points at an OpenAI-compatible API root`,
      );
    }
    refuseErrorBody(json, text, url);
    return parseCompletion(json, { url, maxToolCalls, provider });
  };

  const readStream = async (response: HttpAnswer, generate: GenerateOptions, signal: AbortSignal): Promise<ModelResponse> => {
    const body = response.body;
    if (body === null) throw new ToolgateError('model_error', `${url} sent an event stream with no body`);
    const assembler = new StreamAssembler({ maxToolCalls, provider, ...(generate.onTextDelta === undefined ? {} : { onTextDelta: generate.onTextDelta }) });
    let sawDone = false;
    return readStreamedAnswer<SseEvent>({
      // After [DONE] the reader drains the body's end, so the connection is reused.
      read: (each) => readSseEvents(body, { maxEventBytes, maxBytes: maxStreamBytes, signal, provider, finished: () => sawDone }, each),
      each: (event) => {
        if (event.data.trim() === '[DONE]') {
          sawDone = true;
          return;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(event.data);
        } catch {
          throw new ToolgateError('model_error', `malformed stream from ${url}: an event's data is not JSON: ${JSON.stringify(event.data.slice(0, 200))}`);
        }
        assembler.push(chunk);
      },
      assembler,
      signal,
      complete: () => sawDone || assembler.finished,
      unfinished: 'no finish_reason and no [DONE]',
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
              ...(options.apiKey === undefined || options.apiKey === '' ? {} : { authorization: `Bearer ${options.apiKey}` }),
            },
            options.headers,
          );
          const body = toWireBodyText({ model: options.model, request, ...(options.extraBody === undefined ? {} : { extraBody: options.extraBody }) });
          return { headers, body };
        },
        retryable: (status, bodyText) => RETRYABLE_STATUSES.has(status) && !(status === 429 && isQuotaGone(bodyText)),
        httpError: ({ status, bodyText, attempts }) => httpError({ status, bodyText, url, baseUrl, model: options.model, attempts, provider, keySent }),
        read: (response, signal) => readAnswer({ response, request, generate, signal }),
      });
    },
  };
}
