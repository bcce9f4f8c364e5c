import { createHash } from 'node:crypto';

/** What `scope` asks for when `auth.oidc[].console.scopes` is not set. */
export const DEFAULT_CONSOLE_SCOPES: readonly string[] = ['openid', 'profile'];

/** RFC 7636 S256: base64url(sha256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * The issuer's authorization URL for an authorization code request with PKCE (S256), a nonce for the ID token, and
 * `resource` (RFC 8707) naming this server, so the issuer may mint an access token meant for it.
 */
export function authorizationUrl(options: {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  resource: string;
  state: string;
  nonce: string;
  verifier: string;
}): string {
  const url = new URL(options.authorizationEndpoint);
  const scopes = options.scopes.includes('openid') ? options.scopes : ['openid', ...options.scopes];
  const params: [string, string][] = [
    ['response_type', 'code'],
    ['client_id', options.clientId],
    ['redirect_uri', options.redirectUri],
    ['scope', scopes.join(' ')],
    ['state', options.state],
    ['nonce', options.nonce],
    ['code_challenge', pkceChallenge(options.verifier)],
    ['code_challenge_method', 'S256'],
    ['resource', options.resource],
  ];
  for (const [name, value] of params) url.searchParams.set(name, value);
  return url.href;
}
