import { ToolgateError } from '../../core/errors.ts';
import type { ModelAdapter } from '../../core/ports/model-adapter.ts';
import { withoutUndefined } from '../../core/without-undefined.ts';
import { parseJson } from '../../core/parse-json.ts';
import { defineHttpAdapter, type HttpProviderOptions } from '../shared/define-http-adapter.ts';
import { NDJSON_FRAMING, parseStreamData } from '../shared/event-framing.ts';
import { httpError, RETRYABLE_STATUSES, withConnectionHint } from './errors.ts';
import { parseChatResponse } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';
import { toWireBodyText, type OllamaThink } from './to-wire.ts';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
/** The port Ollama listens on when OLLAMA_HOST names none (and no scheme). */
export const DEFAULT_OLLAMA_PORT = '11434';

/**
 * `model` as Ollama names it, tag included (qwen2.5:7b); `apiKey` is sent as a
 * Bearer token, for a proxy in front of Ollama or a hosted one.
 */
export interface OllamaAdapterOptions extends HttpProviderOptions {
  /** The server root, in OLLAMA_HOST's forms (see normalizeOllamaHost); default http://127.0.0.1:11434. */
  host?: string;
  /** Thinking on/off, or a level, for thinking models; unset leaves the model's default. */
  think?: OllamaThink;
  /** How long the model stays loaded after the call: a duration ("10m") or seconds; negative keeps it loaded. */
  keepAlive?: string | number;
  /** Ollama model options (num_ctx, top_k, seed…), sent under `options`. */
  options?: Record<string, unknown>;
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
  const text = value
    .trim()
    .replace(/^["']+|["']+$/g, '')
    .trim();
  if (text === '') return DEFAULT_OLLAMA_HOST;
  const bad = (why: string): ToolgateError =>
    new ToolgateError(
      'usage',
      `the Ollama host ${JSON.stringify(value)} is not usable: ${why}; give the ` +
        `server root, e.g. 127.0.0.1, example.com:8080 or https://ollama.example.com`,
      {
        details: { option: 'host' },
      },
    );
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    throw bad(`the scheme must be http or https, not ${scheme}`);
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
  return new ToolgateError(
    'usage',
    'the Ollama host holds credentials (user:password@); a model URL may ' +
      'not carry them — send them with the apiKey or headers options instead',
    {
      details: { option: 'host' },
    },
  );
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

/** A ModelAdapter for Ollama's native `POST {host}/api/chat`, over undici (or a given fetch). */
export function createOllamaAdapter(options: OllamaAdapterOptions): ModelAdapter {
  const provider = options.provider ?? 'ollama';
  const { model, apiKey } = options;
  const host = normalizeOllamaHost(options.host ?? DEFAULT_OLLAMA_HOST);
  const url = `${host}/api/chat`;
  const wireOptions = withoutUndefined({
    think: options.think,
    keepAlive: options.keepAlive,
    options: options.options,
    extraBody: options.extraBody,
  });
  return defineHttpAdapter({
    provider,
    url,
    options,
    headers: apiKey === undefined || apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` },
    body: (request) => toWireBodyText({ model, request, ...wireOptions }),
    whole: {
      expected: 'a JSON chat response',
      hint: 'check that the host is an Ollama server root',
      // parseJson, not JSON.parse: tool arguments arrive as objects, where V8's escaped-key bug would rename keys.
      parse: parseJson,
    },
    readWhole: parseChatResponse,
    framing: NDJSON_FRAMING,
    assembler: (assembly) => new StreamAssembler(assembly),
    readEvent: (line, assembler) => assembler.push(parseStreamData(line, { url, what: 'a line', parse: parseJson })),
    unfinished: 'no line with "done": true',
    retryable: ({ status }) => RETRYABLE_STATUSES.has(status),
    httpError: ({ status, bodyText, attempts }) =>
      httpError({ status, bodyText, url, baseUrl: host, model, attempts, provider }),
    finalError: (error) => withConnectionHint(error, { host, provider }),
  });
}
