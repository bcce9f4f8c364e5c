/**
 * What every HTTP model API shares when a call fails: the provider's own
 * message out of an error body, connection failures, and one mapping of
 * statuses to error codes with the provider's hints.
 */
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import { ConnectionFailure, errorCode } from './connection-failure.ts';
import { asObject, previewJson } from './wire.ts';

/** Provider messages are quoted in ours; a whole HTML error page is not useful. */
export const DEFAULT_MAX_PROVIDER_MESSAGE_CHARS = 500;

/**
 * Servers that cannot do native tool calls say so in a 400, each in its own
 * words (Ollama: "… does not support tools"; llama.cpp without --jinja: "tools
 * param requires --jinja flag"; vLLM: "auto" tool choice requires
 * --enable-auto-tool-choice …). Such a refusal is the error code
 * `tools_unsupported`: a caller in "auto" tool mode falls back to prompting.
 */
const TOOLS_UNSUPPORTED_PATTERNS: readonly RegExp[] = [
  /does(?: not|n't) support (?:native )?(?:tools|tool use|tool calling|tool calls|function calling|functions)/i,
  new RegExp(
    String.raw`(?:tools|tool use|tool calling|tool calls|tool[_ ]choice|function[_ ]callin` +
      String.raw`g|functions)\b[^.]{0,40}\b(?:not supported|unsupported|not (?:be )?enabled)`,
    'i',
  ),
  /(?:not supported|unsupported)[^.]{0,40}\b(?:tools|tool[_ ]choice|function[_ ]calling)\b/i,
  /tools? param(?:eter)? requires/i,
  /enable-auto-tool-choice/i,
];

export function isToolsUnsupportedMessage(message: string): boolean {
  return TOOLS_UNSUPPORTED_PATTERNS.some((pattern) => pattern.test(message));
}

function truncate(text: string): string {
  const clean = text.trim().replace(/\s+/g, ' ');
  return clean.length > DEFAULT_MAX_PROVIDER_MESSAGE_CHARS
    ? `${clean.slice(0, DEFAULT_MAX_PROVIDER_MESSAGE_CHARS)}…`
    : clean;
}

/**
 * The provider's own error text from an error body. Shapes seen in the field:
 * `{error:{message}}` (OpenAI, Ollama, llama.cpp, DeepSeek, OpenRouter),
 * `{message}` (older vLLM), `{error:"…"}`, `{detail}` (FastAPI-based servers),
 * an HTML page from a proxy, or plain text.
 */
export function providerMessage(bodyText: string): string {
  if (bodyText.trim() === '') return '(empty body)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    const title = /<title>([^<]*)<\/title>/i.exec(bodyText)?.[1];
    return truncate(title ?? bodyText);
  }
  return messageIn(parsed) ?? truncate(bodyText);
}

/** The provider's error text in an already parsed body, e.g. an error chunk mid-stream. */
export function providerMessageOf(value: unknown): string {
  return messageIn(value) ?? truncate(previewJson(value, DEFAULT_MAX_PROVIDER_MESSAGE_CHARS));
}

function messageIn(parsed: unknown): string | undefined {
  const root = asObject(parsed);
  const error = root?.['error'];
  const nested = asObject(error)?.['message'];
  if (typeof nested === 'string') return truncate(nested);
  if (typeof error === 'string') return truncate(error);
  if (typeof root?.['message'] === 'string') return truncate(root['message']);
  const detail = root?.['detail'];
  if (detail !== undefined)
    return truncate(typeof detail === 'string' ? detail : previewJson(detail, DEFAULT_MAX_PROVIDER_MESSAGE_CHARS));
  return undefined;
}

/** The provider's machine error code (`error.code`), e.g. OpenAI's "insufficient_quota". */
export function providerErrorCode(bodyText: string): string | undefined {
  try {
    const code = asObject(asObject(JSON.parse(bodyText))?.['error'])?.['code'];
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export interface HttpErrorInput {
  status: number;
  bodyText: string;
  url: string;
  baseUrl: string;
  model: string;
  /** Attempts made so far, this one included. */
  attempts: number;
}

/** What a provider adds to the shared messages: where its credentials come from, what a 404 means there. */
export interface HttpErrorHints {
  /** Appended to a 401/403, e.g. "check ANTHROPIC_API_KEY / providers.anthropic.apiKey". */
  auth: string;
  /** The whole 404 message (it differs most between APIs: a wrong base URL, a model not pulled…). */
  notFound: (input: { model: string; url: string; message: string }) => string;
  /** Words in a 429 that mean retrying cannot help (quota, billing). */
  quotaGone?: (bodyText: string) => boolean;
}

/** A final (non-retried or retries-exhausted) HTTP error → ToolgateError. */
export function httpError(input: HttpErrorInput & { hints: HttpErrorHints }): ToolgateError {
  const { status, url, baseUrl, model, attempts, hints } = input;
  const message = providerMessage(input.bodyText);
  const details: Record<string, unknown> = { status, url, providerMessage: message, attempts };
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  const make = (code: ErrorCode, text: string): ToolgateError => new ToolgateError(code, text, { details });

  if (status === 401 || status === 403) {
    return make('model_auth', `${baseUrl} rejected the credentials (HTTP ${status}: ${message}); ${hints.auth}`);
  }
  if (status === 404) return make('model_not_found', hints.notFound({ model, url, message }));
  if (status === 429) {
    const quota = hints.quotaGone?.(input.bodyText) === true ? ' (quota exhausted: check the account billing)' : '';
    return make(
      'model_rate_limited',
      `${baseUrl} is rate limiting requests${quota}: gave up after ${tries}, last HTTP 429 (${message})`,
    );
  }
  if (status >= 500) {
    return make(
      'model_unavailable',
      `${baseUrl} is unavailable: gave up after ${tries}, last HTTP ${status} (${message})`,
    );
  }
  if (status >= 400) {
    const toolsUnsupported = isToolsUnsupportedMessage(message);
    // Kept for readers of the details; the code is what callers branch on.
    details['toolsUnsupported'] = toolsUnsupported;
    const rejected = `${url} rejected the request (HTTP ${status}: ${message})`;
    if (toolsUnsupported)
      return make('tools_unsupported', `${rejected}; this model or server does not support native tool calls`);
    return make('model_bad_request', rejected);
  }
  return make('model_error', `unexpected HTTP ${status} from ${url}: ${message}`);
}

/**
 * Network-level failures: node:http's, wrapped as ConnectionFailure, and those
 * fetch reports as TypeError ("fetch failed", "terminated") with a cause.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof ConnectionFailure) return true;
  if (error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated')) return true;
  return hasNetworkCode(error) || (error.cause instanceof Error && hasNetworkCode(error.cause));
}

function hasNetworkCode(error: Error): boolean {
  const code = errorCode(error);
  return (
    code !== undefined && /^(?:ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR_\w+)$/.test(code)
  );
}

/** "connection failed: connect ECONNREFUSED 127.0.0.1:1", and not fetch's bare "fetch failed". */
export function describeConnectionError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = errorCode(cause);
    return `${error.message}: ${code !== undefined && !cause.message.includes(code) ? `${code} ` : ''}${cause.message}`;
  }
  return error.message;
}

export function connectionError(input: { error: unknown; url: string; attempts: number }): ToolgateError {
  const tries = input.attempts === 1 ? '1 attempt' : `${input.attempts} attempts`;
  const reason = describeConnectionError(input.error);
  return new ToolgateError(
    'model_unavailable',
    `connection to ${input.url} failed: gave up after ${tries}, last error: ` +
      `${reason}; check that the server is running and the base URL is right`,
    { cause: input.error, details: { url: input.url, attempts: input.attempts } },
  );
}

/**
 * An `{"error": …}` chunk after the 200: how OpenRouter, vLLM and Ollama
 * report a failure once the stream has begun. Not retried: text may already
 * be shown, and a runner that failed once mostly fails the same way again.
 */
export function failedMidStream(root: Record<string, unknown>): ToolgateError | undefined {
  if (root['error'] === undefined || root['error'] === null) return undefined;
  const message = providerMessageOf(root);
  return new ToolgateError('model_error', `the model failed mid-stream: ${message}`, {
    details: { providerMessage: message },
  });
}
