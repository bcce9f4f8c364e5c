/**
 * Why a `server.cors.origins` entry cannot be used, or undefined when it is an
 * origin as browsers send it in the `Origin` header: scheme, host and port
 * only, in canonical form (so a listed origin matches that header exactly).
 */
export function corsOriginProblem(value: string): string | undefined {
  if (value.trim() === '*') {
    return (
      '"*" is not allowed: list each origin (e.g. https://app.example.com); a ' +
      'wildcard would let any web site send requests with a key a user gave it'
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an origin such as https://app.example.com (scheme, host and optional port)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'must start with http:// or https://, e.g. https://app.example.com';
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  if (url.origin !== value) {
    return (
      `must be an origin (scheme, host and optional port; no path, query or ` +
      `trailing slash, lower case, no default port): did you mean "${url.origin}"?`
    );
  }
  return undefined;
}
