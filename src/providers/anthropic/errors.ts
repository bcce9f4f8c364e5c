import type { ToolgateError } from '../../core/errors.ts';
import { noKeySentHint } from '../shared/api-key.ts';
import { httpError as sharedHttpError, type HttpErrorInput } from '../shared/http-errors.ts';

/** Where the built-in anthropic provider's key comes from (as Anthropic's own clients read it). */
export const ANTHROPIC_KEY_VARIABLE = 'ANTHROPIC_API_KEY';
import { asObject } from '../shared/wire.ts';

/**
 * Statuses worth another attempt, as the official SDK retries them: request
 * timeout, lock conflict, rate limit, server errors and 529 (overloaded).
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** A 429 or 402 for an account out of credit or over its spend limit: waiting does not help. */
export function isQuotaGone(bodyText: string): boolean {
  let error: Record<string, unknown> | undefined;
  try {
    error = asObject(asObject(JSON.parse(bodyText))?.['error']);
  } catch {
    return false;
  }
  return (
    error?.['type'] === 'billing_error' ||
    asObject(error?.['details'])?.['error_code'] === 'enforced_spend_limit_reached'
  );
}

/**
 * Whether a failed attempt is retried. The API may say so itself in
 * `x-should-retry` (the SDK obeys it either way); otherwise the status decides.
 */
export function shouldRetry(input: { status: number; bodyText: string; shouldRetryHeader?: string | null }): boolean {
  if (input.shouldRetryHeader === 'true') return true;
  if (input.shouldRetryHeader === 'false') return false;
  return RETRYABLE_STATUSES.has(input.status) && !(input.status === 429 && isQuotaGone(input.bodyText));
}

/** The Messages API's final HTTP error; `provider` is its config key (anthropic, or a named endpoint). */
export function httpError(input: HttpErrorInput & { provider?: string; keySent?: boolean }): ToolgateError {
  const provider = input.provider ?? 'anthropic';
  const keyHint =
    provider === 'anthropic' ? 'ANTHROPIC_API_KEY / providers.anthropic.apiKey' : `providers.${provider}.apiKey`;
  const rootHint = provider === 'anthropic' ? 'the base URL' : `the base URL (providers.${provider}.baseUrl)`;
  return sharedHttpError({
    ...input,
    hints: {
      auth:
        input.keySent === false
          ? noKeySentHint({ provider, builtIn: 'anthropic', variable: ANTHROPIC_KEY_VARIABLE })
          : `check ${keyHint} for ${input.baseUrl}`,
      notFound: ({ model, url, message }) =>
        `model "${model}" was not found: POST ${url} answered HTTP 404 (${message}); check the model name ` +
        `(e.g. claude-sonnet-4-5) and that ${rootHint} is the API root without /v1, e.g. https://api.anthropic.com`,
      quotaGone: isQuotaGone,
    },
  });
}
