import { ToolgateError } from '../../core/errors.ts';
import type { GenerateOptions, ModelAdapter, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import { connectionError, httpError, isConnectionError, providerErrorCode, providerMessage, RETRYABLE_STATUSES } from './errors.ts';
import { asObject, parseCompletion } from './from-wire.ts';
import {
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
  limitExceeded,
} from './limits.ts';
import { readText, untilAborted } from './read-body.ts';
import { DEFAULT_MAX_RETRY_DELAY_MS, parseRetryAfter, retryDelay, sleep } from './retry.ts';
import { readSseEvents } from './sse-reader.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBody } from './to-wire.ts';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Local models on a CPU can take minutes for a long answer; the cloud rarely needs this much. */
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;

export interface OpenAIAdapterOptions {
  model: string;
  /** The API root, ending where `/chat/completions` is appended (e.g. http://localhost:11434/v1). */
  baseUrl?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Per attempt, for the whole exchange: connecting, waiting and reading the full stream or body. */
  timeoutMs?: number;
  /** Largest non-streamed response body, in bytes; more fails the call with model_error. */
  maxResponseBytes?: number;
  /** Largest streamed response, in bytes as received; more fails the call with model_error. */
  maxStreamBytes?: number;
  /** Largest single server-sent event (or line of one), in bytes. */
  maxEventBytes?: number;
  /** Most tool calls one answer may hold. */
  maxToolCalls?: number;
  /** Retries after the first attempt on 429, 500, 502, 503, 504 and connection errors. */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** Cap on any single wait between attempts, Retry-After included. */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
  /** Provider-specific body fields (top_p, chat_template_kwargs…), merged last. */
  extraBody?: Record<string, unknown>;
}

/** A failure worth another attempt, turned into a final error only when attempts run out. */
class RetryableFailure extends Error {
  readonly status: number | undefined;
  readonly bodyText: string;
  readonly retryAfterMs: number | undefined;
  /** Text already reached the caller: retrying would show it twice. */
  readonly delivered: boolean;

  constructor(input: { status?: number; bodyText?: string; retryAfterMs?: number | undefined; cause?: unknown; delivered?: boolean }) {
    super(input.status === undefined ? 'connection failed' : `HTTP ${input.status}`, { cause: input.cause });
    this.status = input.status;
    this.bodyText = input.bodyText ?? '';
    this.retryAfterMs = input.retryAfterMs;
    this.delivered = input.delivered ?? false;
  }
}

/** A function, not an inline check, so TypeScript does not narrow `aborted` across awaits. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** A ModelAdapter for any OpenAI-compatible `/chat/completions` endpoint, over plain fetch. */
export function createOpenAIAdapter(options: OpenAIAdapterOptions): ModelAdapter {
  const baseUrl = (options.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
  const url = `${baseUrl}/chat/completions`;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const baseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  const maxDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxStreamBytes = options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;

  const finalError = (failure: RetryableFailure, attempts: number): ToolgateError => {
    if (failure.status !== undefined) {
      return httpError({ status: failure.status, bodyText: failure.bodyText, url, baseUrl, model: options.model, attempts });
    }
    const error = connectionError({ error: failure.cause, url, attempts });
    if (!failure.delivered) return error;
    return new ToolgateError('model_unavailable', `${error.message} (the stream broke after text was delivered, so it was not retried)`, {
      cause: failure.cause,
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  };

  const attemptOnce = async (input: { request: ModelRequest; generate: GenerateOptions; signal: AbortSignal; attempt: number }): Promise<ModelResponse> => {
    const { request, generate, signal, attempt } = input;
    const headers = new Headers({ 'content-type': 'application/json', accept: request.stream ? 'text/event-stream' : 'application/json' });
    if (options.apiKey !== undefined && options.apiKey !== '') headers.set('authorization', `Bearer ${options.apiKey}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    const body = JSON.stringify(toWireBody({ model: options.model, request, ...(options.extraBody === undefined ? {} : { extraBody: options.extraBody }) }));

    let response: Response;
    try {
      response = await untilAborted(fetchFn(url, { method: 'POST', headers, body, signal }), signal);
    } catch (error) {
      throw !signal.aborted && isConnectionError(error) ? new RetryableFailure({ cause: error }) : error;
    }
    if (!response.ok) {
      // Only quoted, truncated; a body that never ends must not hold the attempt.
      const bodyText = await readText(response, { maxBytes: DEFAULT_MAX_ERROR_BODY_BYTES, signal }).catch(() => '');
      const quotaGone = response.status === 429 && providerErrorCode(bodyText) === 'insufficient_quota';
      if (RETRYABLE_STATUSES.has(response.status) && !quotaGone) {
        throw new RetryableFailure({ status: response.status, bodyText, retryAfterMs: parseRetryAfter(response.headers) });
      }
      throw httpError({ status: response.status, bodyText, url, baseUrl, model: options.model, attempts: attempt });
    }
    const contentType = response.headers.get('content-type') ?? '';
    // Some proxies stream whatever was asked; the reader copes either way, and only a streaming request shows deltas.
    if (contentType.includes('text/event-stream')) return readStream(response, request.stream ? generate : {}, signal);
    // Non-streaming, or a server that ignored `stream: true` and answered with one JSON body.
    let text: string;
    try {
      text = await readText(response, {
        maxBytes: maxResponseBytes,
        signal,
        tooLarge: (declared) =>
          limitExceeded({ option: 'maxResponseBytes', limit: maxResponseBytes, what: `the response body from ${url}${declared === undefined ? '' : ` (Content-Length: ${declared})`}` }),
      });
    } catch (error) {
      throw !signal.aborted && isConnectionError(error) ? new RetryableFailure({ cause: error }) : error;
    }
    const result = parseJsonCompletion(text, contentType);
    if (request.stream && result.text !== '') generate.onTextDelta?.(result.text);
    return result;
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
    const error = asObject(json)?.['error'];
    if (error !== undefined && error !== null) {
      const message = providerMessage(text);
      throw new ToolgateError('model_error', `${url} answered 200 with an error: ${message}`, { details: { providerMessage: message } });
    }
    return parseCompletion(json, { url, maxToolCalls });
  };

  const readStream = async (response: Response, generate: GenerateOptions, signal: AbortSignal): Promise<ModelResponse> => {
    if (response.body === null) throw new ToolgateError('model_error', `${url} sent an event stream with no body`);
    const assembler = new StreamAssembler({ maxToolCalls, ...(generate.onTextDelta === undefined ? {} : { onTextDelta: generate.onTextDelta }) });
    let sawDone = false;
    try {
      for await (const event of readSseEvents(response.body, { maxEventBytes, maxBytes: maxStreamBytes, signal })) {
        if (event.data.trim() === '[DONE]') {
          sawDone = true;
          break;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(event.data);
        } catch {
          throw new ToolgateError('model_error', `malformed stream from ${url}: an event's data is not JSON: ${JSON.stringify(event.data.slice(0, 200))}`);
        }
        assembler.push(chunk);
      }
    } catch (error) {
      if (!signal.aborted && isConnectionError(error)) throw new RetryableFailure({ cause: error, delivered: assembler.delivered });
      throw error;
    }
    if (!sawDone && !assembler.finished) {
      const cause = new Error('the stream ended before the model finished (no finish_reason and no [DONE])');
      throw new RetryableFailure({ cause, delivered: assembler.delivered });
    }
    return assembler.finish();
  };

  return {
    id: `openai:${options.model}`,
    async generate(request: ModelRequest, generate: GenerateOptions = {}): Promise<ModelResponse> {
      const userSignal = generate.signal;
      const cancelled = (): ToolgateError => new ToolgateError('cancelled', `model request to ${url} was cancelled`, { cause: userSignal?.reason });
      for (let attempt = 1; ; attempt += 1) {
        if (aborted(userSignal)) throw cancelled();
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = userSignal === undefined ? timeout : AbortSignal.any([userSignal, timeout]);
        try {
          return await attemptOnce({ request, generate, signal, attempt });
        } catch (error) {
          if (aborted(userSignal)) throw cancelled();
          if (timeout.aborted) {
            throw new ToolgateError(
              'model_timeout',
              `model request to ${url} did not finish within ${timeoutMs} ms; raise timeoutMs (providers.openai.timeoutMs) for slow or local models`,
              { cause: error, details: { url, timeoutMs, attempts: attempt } },
            );
          }
          if (!(error instanceof RetryableFailure)) throw error;
          if (error.delivered || attempt > maxRetries) throw finalError(error, attempt);
          const delay = retryDelay({ retry: attempt, baseMs: baseDelayMs, maxMs: maxDelayMs, retryAfterMs: error.retryAfterMs });
          try {
            await sleep(delay, userSignal);
          } catch {
            throw cancelled();
          }
        }
      }
    },
  };
}
