import type { ToolgateError } from '../../core/errors.ts';
import { noKeySentHint } from '../shared/api-key.ts';
import { httpError as sharedHttpError, providerErrorCode, type HttpErrorInput } from '../shared/http-errors.ts';

/** Where the built-in openai provider's key comes from (as OpenAI's own clients read it). */
export const OPENAI_KEY_VARIABLE = 'OPENAI_API_KEY';

/** Statuses worth another attempt: rate limits and transient server trouble. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** OpenAI's 429 for an account out of credit: waiting does not help. */
export function isQuotaGone(bodyText: string): boolean {
  return providerErrorCode(bodyText) === 'insufficient_quota';
}

/** An OpenAI-compatible endpoint's final HTTP error; `provider` is its config key (openai, or a named endpoint). */
export function httpError(input: HttpErrorInput & { provider?: string; keySent?: boolean }): ToolgateError {
  const provider = input.provider ?? 'openai';
  const keyHint =
    provider === 'openai'
      ? '--api-key / OPENAI_API_KEY / providers.openai.apiKey'
      : `--api-key / providers.${provider}.apiKey`;
  const rootHint = provider === 'openai' ? '--base-url' : `--base-url (providers.${provider}.baseUrl)`;
  return sharedHttpError({
    ...input,
    hints: {
      auth:
        input.keySent === false
          ? noKeySentHint({ provider, builtIn: 'openai', variable: OPENAI_KEY_VARIABLE })
          : `check ${keyHint} for ${input.baseUrl}`,
      notFound: ({ model, url, message }) =>
        `model "${model}" or its endpoint was not found: POST ${url} answered HTTP 404 (${message}); ` +
        `check the model name and that ${rootHint} ends at the API root, e.g. http://localhost:11434/v1`,
      quotaGone: isQuotaGone,
    },
  });
}
