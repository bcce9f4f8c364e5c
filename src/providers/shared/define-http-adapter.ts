/**
 * An HTTP model API as a declaration (as vercel/ai's `postJsonToApi` takes a
 * body and response handlers): the provider says where a request goes, what
 * it sends and how to read what comes back; the skeleton runs every call the
 * same way — one POST per attempt over undici or a given fetch, a timeout per
 * attempt, retries with backoff that never repeat streamed text, bounded
 * reads, a whole answer or a stream, cancellation at any point.
 */
import { ToolgateError } from '../../core/errors.ts';
import type { GenerateOptions, ModelAdapter, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import type { EventFraming } from './event-framing.ts';
import type { AnswerHeaders, HttpAnswer } from './http-answer.ts';
import { httpPostFor } from './http-post.ts';
import { readLimits, type AssemblerOptions, type ReadLimitOptions } from './limits.ts';
import {
  readStreamedAnswer,
  readWholeAnswer,
  refuseErrorBody,
  streamEnded,
  type AssembledStream,
} from './read-answer.ts';
import { callWithRetries, requestHeaders, type RetryPolicy } from './request-loop.ts';
import type { WireReadOptions } from './wire.ts';

/** What every HTTP adapter's options hold besides its own. */
export interface HttpAdapterOptions extends RetryPolicy, ReadLimitOptions {
  /** Configured headers: each replaces a default of the same name, whatever its case. */
  headers?: Record<string, string>;
  /** A fetch of the caller's own (tests, instrumented clients); otherwise undici (http-post.ts). */
  fetch?: typeof fetch;
}

/** The options every HTTP provider's adapter takes besides its own. */
export interface HttpProviderOptions extends HttpAdapterOptions {
  /** The model as the API names it. */
  model: string;
  /**
   * The config key this endpoint is named by (default: the provider's own name): the adapter's id is
   * `<provider>:<model>`.
   */
  provider?: string;
  /** The API key, sent the API's way (a Bearer token, `x-api-key`). */
  apiKey?: string;
  /** Provider-specific body fields (top_p, top_k, metadata…), merged last. */
  extraBody?: Record<string, unknown>;
}

/** A failed attempt's HTTP answer: its status, its body (read, truncated) and headers. */
export interface FailedAnswer {
  status: number;
  bodyText: string;
  headers: AnswerHeaders;
}

/** How a whole (non-streamed) JSON answer is told apart from something else. */
export interface WholeAnswerSpec {
  /** What the body should have been, for the error when it is not JSON: "a JSON chat completion". */
  expected: string;
  /** How to fix a body that is not JSON (which base URL is right). */
  hint: string;
  /** JSON.parse unless given: parseJson where objects arrive whose keys must stay as sent. */
  parse?: (text: string) => unknown;
  /** A 200 whose JSON is an error other than `{"error": …}` (Anthropic's `type: "error"`). */
  isError?: (json: unknown) => boolean;
}

export interface HttpAdapterSpec<E, A extends AssembledStream> {
  /**
   * The config key (`providers.<name>`), named in limit and timeout messages; the adapter's id is `<provider>:<model>`.
   */
  provider: string;
  url: string;
  options: HttpAdapterOptions & { model: string };
  /** When set, every call fails with its error before any request (the hosted API without its key). */
  refuse?: (() => ToolgateError) | undefined;
  /** The provider's own headers (credentials, API version); content-type and accept come from the skeleton. */
  headers: Record<string, string>;
  /** The request as the API's JSON body text. */
  body: (request: ModelRequest) => string;
  whole: WholeAnswerSpec;
  /** A whole answer's JSON → ModelResponse. */
  readWhole: (json: unknown, options: WireReadOptions) => ModelResponse;
  framing: EventFraming<E>;
  /** A fresh assembler for one streamed answer. */
  assembler: (options: AssemblerOptions) => A;
  /** One streamed event, handed to the answer's assembler. */
  readEvent: (event: E, assembler: A) => void;
  /** What a stream that ended too early lacked, e.g. "no message_stop". */
  unfinished: string;
  /** Whether a failed attempt is worth another one. */
  retryable: (answer: FailedAnswer) => boolean;
  /** The final error for an HTTP status that is not retried or whose retries ran out. */
  httpError: (answer: { status: number; bodyText: string; attempts: number }) => ToolgateError;
  /** Rewords a call's final error (e.g. where the server was expected); others pass unchanged. */
  finalError?: (error: unknown) => unknown;
}

/** A ModelAdapter that runs the declared API's calls. */
export function defineHttpAdapter<E, A extends AssembledStream>(spec: HttpAdapterSpec<E, A>): ModelAdapter {
  const { url, provider, options, framing } = spec;
  const post = httpPostFor(options.fetch);
  const { maxResponseBytes, maxStreamBytes, maxEventBytes, maxToolCalls } = readLimits(options);
  const wire: WireReadOptions = { url, maxToolCalls, provider };

  const parseWhole = (text: string, contentType: string): ModelResponse => {
    let json: unknown;
    try {
      json = (spec.whole.parse ?? JSON.parse)(text);
    } catch {
      throw new ToolgateError(
        'model_error',
        `expected ${spec.whole.expected} from ${url} but got ${contentType || 'no content type'}: ` +
          `${JSON.stringify(text.slice(0, 200))}; ${spec.whole.hint}`,
      );
    }
    refuseErrorBody({ json, text, url, isError: spec.whole.isError?.(json) ?? false });
    return spec.readWhole(json, wire);
  };

  const readStream = async (
    response: HttpAnswer,
    generate: GenerateOptions,
    signal: AbortSignal,
  ): Promise<ModelResponse> => {
    const body = response.body;
    if (body === null) throw new ToolgateError('model_error', `${url} sent ${framing.noun} with no body`);
    const assembler = spec.assembler({
      maxToolCalls,
      provider,
      ...(generate.onTextDelta === undefined ? {} : { onTextDelta: generate.onTextDelta }),
    });
    return readStreamedAnswer<E>({
      // After the last event the reader drains the body's end, so the connection is reused.
      read: (each) =>
        framing.read(
          body,
          { maxEventBytes, maxBytes: maxStreamBytes, signal, provider, finished: () => streamEnded(assembler) },
          each,
        ),
      each: (event) => spec.readEvent(event, assembler),
      assembler,
      signal,
      unfinished: spec.unfinished,
    });
  };

  const readAnswer = async (input: {
    response: HttpAnswer;
    request: ModelRequest;
    generate: GenerateOptions;
    signal: AbortSignal;
  }): Promise<ModelResponse> => {
    const { response, request, generate, signal } = input;
    const contentType = response.headers.get('content-type') ?? '';
    // Only a streaming request shows deltas, whatever the server chose to send.
    if (framing.isStream(contentType, request.stream))
      return readStream(response, request.stream ? generate : {}, signal);
    // Non-streaming, or a server (a proxy) that answered `stream: true` with one JSON body.
    return readWholeAnswer({
      response,
      signal,
      url,
      provider,
      maxBytes: maxResponseBytes,
      request,
      generate,
      parse: (text) => parseWhole(text, contentType),
    });
  };

  const call = (request: ModelRequest, generate: GenerateOptions): Promise<ModelResponse> =>
    callWithRetries({
      url,
      provider,
      post,
      policy: options,
      signal: generate.signal,
      request: () => ({
        headers: requestHeaders(
          {
            'content-type': 'application/json',
            accept: request.stream ? framing.accept : 'application/json',
            ...spec.headers,
          },
          options.headers,
        ),
        body: spec.body(request),
      }),
      retryable: spec.retryable,
      httpError: spec.httpError,
      read: (response, signal) => readAnswer({ response, request, generate, signal }),
    });

  const { refuse, finalError } = spec;
  return {
    id: `${provider}:${options.model}`,
    generate(request: ModelRequest, generate: GenerateOptions = {}): Promise<ModelResponse> {
      if (refuse !== undefined) return Promise.reject(refuse());
      if (finalError === undefined) return call(request, generate);
      return call(request, generate).catch((error: unknown) => {
        throw finalError(error);
      });
    },
  };
}
