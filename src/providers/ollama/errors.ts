import { ToolgateError } from '../../core/errors.ts';
import { errorCode } from '../shared/connection-failure.ts';
import { httpError as sharedHttpError, type HttpErrorInput } from '../shared/http-errors.ts';

/**
 * Statuses worth another attempt: rate limits (ollama.com, proxies) and
 * transient server trouble — a runner being restarted or still loading
 * answers 500, a full queue 503.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Ollama's two wordings: `model 'x' not found` and `model "x" not found, try pulling it first`. */
const MODEL_NOT_FOUND_RE = /\bmodel\b.*\bnot found\b/i;
/** A 400 for `think` sent to a model without thinking: `"gemma3" does not support thinking`. */
const THINKING_UNSUPPORTED_RE = /does not support thinking/i;

export interface OllamaHttpErrorInput extends HttpErrorInput {
  /** The config key (default ollama). */
  provider?: string;
}

/** Ollama's final HTTP error; `baseUrl` is the normalised host. */
export function httpError(input: OllamaHttpErrorInput): ToolgateError {
  const provider = input.provider ?? 'ollama';
  const error = sharedHttpError({
    ...input,
    hints: {
      auth: `check providers.${provider}.apiKey (Ollama itself needs no key; a proxy in front of it does)`,
      notFound: ({ model, url, message }) =>
        MODEL_NOT_FOUND_RE.test(message)
          ? `model "${model}" is not available on ${input.baseUrl}: pull ` +
            `it with \`ollama pull ${model}\` (Ollama said: ${message})`
          : `${url} was not found (HTTP 404: ${message}); check the host (OLLAMA_HOST / ` +
            `providers.${provider}.host) — it is the server root, e.g. http://127.0.0.1:11434, without /api or /v1`,
    },
  });
  if (error.code === 'model_bad_request' && THINKING_UNSUPPORTED_RE.test(String(error.details?.['providerMessage']))) {
    return new ToolgateError(error.code, `${error.message}; unset providers.${provider}.think for this model`, {
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
  return error;
}

/** Network codes that mean nothing answers at the host: Ollama not started, or the wrong address. */
const NOT_LISTENING_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    const code = errorCode(e);
    if (code !== undefined) return code;
  }
  return undefined;
}

/**
 * The shared connection error with where Ollama was expected, when nothing
 * listens there. Other errors pass unchanged.
 */
export function withConnectionHint(error: unknown, input: { host: string; provider: string }): unknown {
  if (
    !(error instanceof ToolgateError) ||
    error.code !== 'model_unavailable' ||
    error.details?.['status'] !== undefined
  )
    return error;
  const code = networkCode(error.cause);
  if (code === undefined || !NOT_LISTENING_CODES.has(code)) return error;
  return new ToolgateError(
    'model_unavailable',
    `${error.message}; is Ollama running at ${input.host}? start it with \`ollama ` +
      `serve\`, or point OLLAMA_HOST / providers.${input.provider}.host at it`,
    { cause: error.cause, ...(error.details === undefined ? {} : { details: error.details }) },
  );
}
