import { randomBytes } from 'node:crypto';
import type { SessionSigner } from '../session.ts';

/** The cookie that carries a sign-in in progress from GET /v1/auth/login to GET /v1/auth/callback. */
export const LOGIN_STATE_COOKIE = 'toolgate_login';
/** How long a sign-in at the issuer may take. */
export const LOGIN_STATE_TTL_SECONDS = 600;
/** The cookie is sent to the callback only. */
const LOGIN_STATE_PATH = '/v1/auth/';

/** What the callback must know of the request it answers; it never leaves the (signed, HttpOnly) cookie. */
export interface LoginState {
  /** The `state` parameter sent to the issuer. */
  state: string;
  /** The `nonce` the ID token must carry. */
  nonce: string;
  /** The PKCE code_verifier. */
  verifier: string;
  /** The issuer URL (as configured). */
  issuer: string;
  /** The console route to return to, e.g. `#/runs`. */
  returnTo: string;
}

/** Fresh random state, nonce and PKCE verifier (32 bytes each, base64url: 43 characters, RFC 7636's range). */
export function newLoginSecrets(): Pick<LoginState, 'state' | 'nonce' | 'verifier'> {
  const random = (): string => randomBytes(32).toString('base64url');
  return { state: random(), nonce: random(), verifier: random() };
}

/**
 * The cookie's value: `<base64url JSON with expiry>.<HMAC>`, signed with the session secret, so any instance with
 * the same secret finishes a sign-in another one started, and nothing is stored on the server.
 */
export function sealLoginState(signer: SessionSigner, login: LoginState, now: number = Date.now()): string {
  const expiresAt = Math.floor(now / 1000) + LOGIN_STATE_TTL_SECONDS;
  const payload = Buffer.from(JSON.stringify({ ...login, exp: expiresAt }), 'utf8').toString('base64url');
  return `${payload}.${signer.sign('login', payload)}`;
}

/** The sign-in a cookie value stands for, when its signature holds and it has not expired. */
export function openLoginState(
  signer: SessionSigner,
  value: string | undefined,
  now: number = Date.now(),
): LoginState | undefined {
  const match = value === undefined ? null : /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (match === null) return undefined;
  const [, payload = '', signature = ''] = match;
  if (!signer.signatureMatches('login', payload, signature)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const fields = Object.fromEntries(Object.entries(parsed));
  const { state, nonce, verifier, issuer, returnTo, exp } = fields;
  if (typeof exp !== 'number' || exp * 1000 <= now) return undefined;
  if (
    typeof state !== 'string' ||
    typeof nonce !== 'string' ||
    typeof verifier !== 'string' ||
    typeof issuer !== 'string' ||
    typeof returnTo !== 'string'
  )
    return undefined;
  return { state, nonce, verifier, issuer, returnTo };
}

/** `Set-Cookie` for a sign-in in progress: HttpOnly, SameSite=Lax (it must ride the issuer's redirect back). */
export function loginStateCookie(value: string, options: { secure: boolean; maxAgeSeconds?: number }): string {
  return (
    `${LOGIN_STATE_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=${LOGIN_STATE_PATH}; ` +
    `Max-Age=${options.maxAgeSeconds ?? LOGIN_STATE_TTL_SECONDS}${options.secure ? '; Secure' : ''}`
  );
}

/** `Set-Cookie` that removes the sign-in cookie: it is good for one callback only. */
export function clearedLoginStateCookie(options: { secure: boolean }): string {
  return loginStateCookie('', { secure: options.secure, maxAgeSeconds: 0 });
}

/** The sign-in cookie's value in a `Cookie` header. */
export function readLoginStateCookie(header: string | undefined): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== LOGIN_STATE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (value !== '') return value;
  }
  return undefined;
}
