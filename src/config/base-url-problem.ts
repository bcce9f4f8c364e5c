/** Shown in every base URL message: the most common mistake is a local server written without its scheme. */
export const BASE_URL_EXAMPLE = 'http://localhost:11434/v1';

/**
 * Why a provider base URL cannot be used, or undefined when it is an absolute
 * http(s) URL. Checked where the value enters (file, environment, flag) so a
 * mistake is reported with its source at start, not as a confusing fetch
 * error on the first model call.
 */
export function baseUrlProblem(value: string, example: string = BASE_URL_EXAMPLE): string | undefined {
  if (!/^https?:\/\//i.test(value.trim())) return `must start with http:// or https://, e.g. ${example}`;
  try {
    new URL(value);
  } catch {
    return `is not a valid URL, e.g. ${example}`;
  }
  return undefined;
}
