import { ToolgateError } from '../../core/errors.ts';
import type { GenerateOptions, ModelAdapter, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import { parseJson } from '../../core/parse-json.ts';
import { readLimits, type ReadLimitOptions } from '../shared/limits.ts';
import { readLines } from '../shared/ndjson-reader.ts';
import { readStreamedAnswer, readWholeAnswer, refuseErrorBody } from '../shared/read-answer.ts';
import { httpPostFor, type HttpAnswer } from '../shared/http-post.ts';
import { callWithRetries, requestHeaders, type RetryPolicy } from '../shared/request-loop.ts';
import { httpError, RETRYABLE_STATUSES, withConnectionHint } from './errors.ts';
import { parseChatResponse } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBodyText, type OllamaThink } from './to-wire.ts';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
/** The port Ollama listens on when OLLAMA_HOST names none (and no scheme). */
export const DEFAULT_OLLAMA_PORT = '11434';

export interface OllamaAdapterOptions extends RetryPolicy, ReadLimitOptions {
  /** As Ollama names it, tag included (qwen2.5:7b). */
  model: string;
  /** The config key this endpoint is named by (default ollama): the adapter's id is `<provider>:<model>`. */
  provider?: string;
  /** The server root, in OLLAMA_HOST's forms (see normalizeOllamaHost); default http://127.0.0.1:11434. */
  host?: string;
  /** Sent as a Bearer token: for a proxy in front of Ollama, or a hosted one. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Thinking on/off, or a level, for thinking models; unset leaves the model's default. */
  think?: OllamaThink;
  /** How long the model stays loaded after the call: a duration ("10m") or seconds; negative keeps it loaded. */
  keepAlive?: string | number;
  /** Ollama model options (num_ctx, top_k, seed…), sent under `options`. */
  options?: Record<string, unknown>;
  fetch?: typeof fetch;
  /** Body fields merged last, shallowly (an `options` here replaces the whole object). */
  extraBody?: Record<string, unknown>;
}

/**
 * An OLLAMA_HOST value as a base URL, the way Ollama's own clients read it
 * (envconfig.Host, then ConnectableHost): surrounding spaces and quotes
 * dropped; no scheme means http on port 11434 unless one is given; with a
 * scheme the scheme's port; a bare ":port" is the local machine; "ollama.com"
 * is https; a path (a proxy prefix) is kept; and the bind-all addresses
 * 0.0.0.0 and :: become loopback, since they cannot be connected to.
 * Where Ollama quietly falls back to a default, this throws a usage error.
 */
export function normalizeOllamaHost(value: string): string {
  const text = value.trim().replace(/^["']+|["']+$/g, '').trim();
  if (text === '') return DEFAULT_OLLAMA_HOST;
  const bad = (why: string): ToolgateError =>
    new ToolgateError('usage', `the Ollama host ${JSON.stringify(value)} is not usable: ${why}; give the server root, e.g. 127.0.0.1, example.com:8080 or https://ollama.example.com`, {
      details: { option: 'host' },
    });
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') throw bad(`the scheme must be http or https, not ${scheme}`);
  let full: string;
  if (scheme !== undefined) full = text;
  else if (text.toLowerCase() === 'ollama.com') full = 'https://ollama.com';
  else {
    const slash = text.indexOf('/');
    const hostport = slash === -1 ? text : text.slice(0, slash);
    if (hostport.includes('@')) throw credentialsError();
    full = `http://${withDefaultPort(hostport)}${slash === -1 ? '' : text.slice(slash)}`;
  }
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    throw bad('it is not a host name or address with an optional port (0-65535)');
  }
  if (url.username !== '' || url.password !== '') throw credentialsError();
  if (url.search !== '' || url.hash !== '') throw bad('a query or fragment has no place in it');
  if (url.hostname === '') throw bad('it names no host');
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

function credentialsError(): ToolgateError {
  // The value is not quoted: it holds a password.
  return new ToolgateError('usage', 'the Ollama host holds credentials (user:password@); a model URL may not carry them — send them with the apiKey or headers options instead', {
    details: { option: 'host' },
  });
}

/** `host[:port]` without a scheme, with Ollama's default port when none is given. */
function withDefaultPort(hostport: string): string {
  const colons = hostport.split(':').length - 1;
  if (hostport.startsWith(':') && colons === 1) return `127.0.0.1${hostport}`;
  if (hostport.startsWith('[')) {
    const match = /^(\[[^\]]*\])(?::(.*))?$/.exec(hostport);
    if (match === null) return hostport;
    return match[2] === undefined || match[2] === '' ? `${match[1]}:${DEFAULT_OLLAMA_PORT}` : hostport;
  }
  if (colons >= 2) return `[${hostport}]:${DEFAULT_OLLAMA_PORT}`; // a bare IPv6 address
  if (colons === 1) return hostport.endsWith(':') ? `${hostport}${DEFAULT_OLLAMA_PORT}` : hostport;
  return `${hostport}:${DEFAULT_OLLAMA_PORT}`;
}

/** A ModelAdapter for Ollama's native `POST {host}/api/chat`, over node:http (or a given fetch). */
export function createOllamaAdapter(options: OllamaAdapterOptions): ModelAdapter {
  const provider = options.provider ?? 'ollama';
  const host = normalizeOllamaHost(options.host ?? DEFAULT_OLLAMA_HOST);
  const url = `${host}/api/chat`;
  const post = httpPostFor(options.fetch);
  const { maxResponseBytes, maxStreamBytes, maxEventBytes, maxToolCalls } = readLimits(options);

  const readAnswer = async (input: { response: HttpAnswer; request: ModelRequest; generate: GenerateOptions; signal: AbortSignal }): Promise<ModelResponse> => {
    const { response, request, generate, signal } = input;
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    // Ollama streams as application/x-ndjson and answers `stream: false` (or an error) as application/json;
    // without either word the request decides. Only a streaming request shows deltas.
    const lines = contentType.includes('ndjson') || (request.stream && !contentType.includes('json'));
    if (lines) return readStream(response, request.stream ? generate : {}, signal);
    return readWholeAnswer({ response, signal, url, provider, maxBytes: maxResponseBytes, request, generate, parse: (text) => parseWholeBody(text, contentType) });
  };

  const parseWholeBody = (text: string, contentType: string): ModelResponse => {
    let json: unknown;
    try {
      // parseJson, not JSON.parse: tool arguments arrive as objects, where V8's escaped-key bug would rename keys.
      json = parseJson(text);
    } catch {
      throw new ToolgateError(
        'model_error',
        `expected a JSON chat response from ${url} but got ${contentType || 'no content type'}: ${JSON.stringify(text.slice(0, 200))}; check that the host is an Ollama server root`,
      );
    }
    refuseErrorBody(json, text, url);
    return parseChatResponse(json, { url, maxToolCalls, provider });
  };

  const readStream = async (response: HttpAnswer, generate: GenerateOptions, signal: AbortSignal): Promise<ModelResponse> => {
    const body = response.body;
    if (body === null) throw new ToolgateError('model_error', `${url} sent a stream with no body`);
    const assembler = new StreamAssembler({ maxToolCalls, provider, ...(generate.onTextDelta === undefined ? {} : { onTextDelta: generate.onTextDelta }) });
    return readStreamedAnswer<string>({
      // After the line with "done": true the reader drains the body's end, so the connection is reused.
      read: (each) => readLines(body, { maxLineBytes: maxEventBytes, maxBytes: maxStreamBytes, signal, provider, finished: () => assembler.finished }, each),
      each: (line) => {
        let chunk: unknown;
        try {
          chunk = parseJson(line);
        } catch {
          throw new ToolgateError('model_error', `malformed stream from ${url}: a line is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
        }
        assembler.push(chunk);
      },
      assembler,
      signal,
      unfinished: 'no line with "done": true',
    });
  };

  const wireOptions = {
    ...(options.think === undefined ? {} : { think: options.think }),
    ...(options.keepAlive === undefined ? {} : { keepAlive: options.keepAlive }),
    ...(options.options === undefined ? {} : { options: options.options }),
    ...(options.extraBody === undefined ? {} : { extraBody: options.extraBody }),
  };

  return {
    id: `${provider}:${options.model}`,
    async generate(request: ModelRequest, generate: GenerateOptions = {}): Promise<ModelResponse> {
      try {
        return await callWithRetries({
          url,
          provider,
          post,
          policy: options,
          signal: generate.signal,
          request: () => {
            const headers = requestHeaders(
              {
                'content-type': 'application/json',
                accept: request.stream ? 'application/x-ndjson' : 'application/json',
                ...(options.apiKey === undefined || options.apiKey === '' ? {} : { authorization: `Bearer ${options.apiKey}` }),
              },
              options.headers,
            );
            return { headers, body: toWireBodyText({ model: options.model, request, ...wireOptions }) };
          },
          retryable: (status) => RETRYABLE_STATUSES.has(status),
          httpError: ({ status, bodyText, attempts }) => httpError({ status, bodyText, url, baseUrl: host, model: options.model, attempts, provider }),
          read: (response, signal) => readAnswer({ response, request, generate, signal }),
        });
      } catch (error) {
        throw withConnectionHint(error, { host, provider });
      }
    },
  };
}
