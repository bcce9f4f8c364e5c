import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../core/errors.ts';

/** The cookie a browser signs in with (POST /v1/session). */
export const SESSION_COOKIE = 'toolgate_session';
/** What a cookie-authenticated request other than GET/HEAD must echo: the session's csrfToken. */
export const CSRF_HEADER = 'X-CSRF-Token';
/** A session's lifetime unless `server.sessionTtlSeconds` says otherwise: 12 h. */
export const DEFAULT_SESSION_TTL_SECONDS = 12 * 60 * 60;
export const MIN_SESSION_SECRET_LENGTH = 32;

/** A verified session: who signed in (by key fingerprint) and until when. */
export interface Session {
  id: string;
  /** keyFingerprint of the API key it was opened with. */
  fingerprint: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * Who a session signed in with an OpenID Connect issuer is: the identity itself travels in the (signed) token, since
 * there is no configured key to point at.
 */
export interface SessionIdentity {
  tenantId: string;
  userId?: string;
  roles?: string[];
  /** The issuer URL and the token's `sub`. */
  issuer: string;
  subject: string;
}

/** A verified session opened through an issuer (GET /v1/auth/callback). */
export interface IdentitySession {
  id: string;
  identity: SessionIdentity;
  /** Milliseconds since the epoch: never after the token it was opened with expired. */
  expiresAt: number;
}

export interface IssuedSession extends Session {
  /** The cookie's value. */
  token: string;
  csrfToken: string;
  maxAgeSeconds: number;
}

const TOKEN_PATTERN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})\.([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})$/;
// `<id>.i.<identity as base64url JSON>.<expiry>.<HMAC>`: one part more than a key session, so neither reads as
// the other.
const IDENTITY_TOKEN_PATTERN =
  /^([A-Za-z0-9_-]{22})\.i\.([A-Za-z0-9_-]{1,3000})\.([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})$/;

/**
 * Stateless sessions: the token is `<id>.<key fingerprint>.<expiry>.<HMAC>`,
 * signed with the server secret, so any process holding the same secret
 * verifies it and nothing is stored. The CSRF token is an HMAC of the session
 * id under the same secret (domain-separated), so it needs no storage either.
 * Without a configured secret a random one is made: sessions end with the process.
 */
export class SessionSigner {
  readonly ttlSeconds: number;
  readonly #secret: Buffer;
  readonly #now: () => number;

  constructor(options: { secret?: string | undefined; ttlSeconds?: number | undefined; now?: () => number } = {}) {
    if (options.secret !== undefined && options.secret.length < MIN_SESSION_SECRET_LENGTH) {
      throw new ToolgateError(
        'usage',
        `the session secret must be at least ${MIN_SESSION_SECRET_LENGTH} characters (server.sessionSecret)`,
      );
    }
    this.#secret = options.secret === undefined ? randomBytes(32) : Buffer.from(options.secret, 'utf8');
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
    if (!Number.isInteger(this.ttlSeconds) || this.ttlSeconds < 60 || this.ttlSeconds > 2_592_000) {
      throw new ToolgateError(
        'usage',
        `the session lifetime must be a whole number of seconds from 60 ` +
          `to 2592000 (server.sessionTtlSeconds), got ${this.ttlSeconds}`,
      );
    }
    this.#now = options.now ?? Date.now;
  }

  issue(fingerprint: string): IssuedSession {
    const id = randomBytes(16).toString('base64url');
    const expirySeconds = Math.floor(this.#now() / 1000) + this.ttlSeconds;
    const payload = `${id}.${fingerprint}.${expirySeconds}`;
    return {
      id,
      fingerprint,
      expiresAt: expirySeconds * 1000,
      token: `${payload}.${this.#mac('session', payload).toString('base64url')}`,
      csrfToken: this.csrfToken(id),
      maxAgeSeconds: this.ttlSeconds,
    };
  }

  /** The session a token stands for, when its signature holds and it has not expired. */
  verify(token: string): Session | undefined {
    const match = TOKEN_PATTERN.exec(token);
    if (match === null) return undefined;
    const [, id = '', fingerprint = '', expiry = '', signature = ''] = match;
    const expected = this.#mac('session', `${id}.${fingerprint}.${expiry}`);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const expiresAt = Number(expiry) * 1000;
    if (expiresAt <= this.#now()) return undefined;
    return { id, fingerprint, expiresAt };
  }

  /**
   * A session for an identity an issuer vouched for, ending at `notAfter` (the token's expiry, ms) when that comes
   * before the configured lifetime. Signed under its own purpose, so a key session's MAC never fits it.
   */
  issueIdentity(identity: SessionIdentity, notAfter: number): IssuedIdentitySession {
    const id = randomBytes(16).toString('base64url');
    const nowSeconds = Math.floor(this.#now() / 1000);
    const expirySeconds = Math.min(nowSeconds + this.ttlSeconds, Math.floor(notAfter / 1000));
    if (expirySeconds <= nowSeconds) {
      throw new ToolgateError('unauthorized', 'the token has already expired: sign in again');
    }
    const payload = `${id}.i.${Buffer.from(JSON.stringify(identity), 'utf8').toString('base64url')}.${expirySeconds}`;
    return {
      id,
      identity,
      expiresAt: expirySeconds * 1000,
      token: `${payload}.${this.#mac('identity', payload).toString('base64url')}`,
      csrfToken: this.csrfToken(id),
      maxAgeSeconds: expirySeconds - nowSeconds,
    };
  }

  /** The identity session a token stands for, when its signature holds and it has not expired. */
  verifyIdentity(token: string): IdentitySession | undefined {
    const match = IDENTITY_TOKEN_PATTERN.exec(token);
    if (match === null) return undefined;
    const [, id = '', encoded = '', expiry = '', signature = ''] = match;
    const expected = this.#mac('identity', `${id}.i.${encoded}.${expiry}`);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const expiresAt = Number(expiry) * 1000;
    if (expiresAt <= this.#now()) return undefined;
    const identity = parseIdentity(Buffer.from(encoded, 'base64url').toString('utf8'));
    return identity === undefined ? undefined : { id, identity, expiresAt };
  }

  /** An HMAC (base64url) of `text` for another stateless token (the sign-in state cookie), under its own purpose. */
  sign(purpose: 'login', text: string): string {
    return this.#mac(purpose, text).toString('base64url');
  }

  /** Whether `signature` is sign(purpose, text), compared in constant time. */
  signatureMatches(purpose: 'login', text: string, signature: string): boolean {
    const expected = this.#mac(purpose, text);
    const given = Buffer.from(signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  csrfToken(sessionId: string): string {
    return this.#mac('csrf', sessionId).toString('base64url');
  }

  csrfMatches(sessionId: string, presented: string | undefined): boolean {
    if (presented === undefined || !/^[A-Za-z0-9_-]{43}$/.test(presented.trim())) return false;
    const expected = this.#mac('csrf', sessionId);
    const given = Buffer.from(presented.trim(), 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(purpose: 'session' | 'csrf' | 'identity' | 'login', text: string): Buffer {
    return createHmac('sha256', this.#secret).update(`toolgate ${purpose} v1\u0000${text}`, 'utf8').digest();
  }
}

export interface IssuedIdentitySession extends IdentitySession {
  /** The cookie's value. */
  token: string;
  csrfToken: string;
  maxAgeSeconds: number;
}

/** The identity in a token whose signature held (it was written by issueIdentity, but stay strict). */
function parseIdentity(text: string): SessionIdentity | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { tenantId, userId, roles, issuer, subject } = Object.fromEntries(Object.entries(value));
  if (typeof tenantId !== 'string' || typeof issuer !== 'string' || typeof subject !== 'string') return undefined;
  if (userId !== undefined && typeof userId !== 'string') return undefined;
  if (roles !== undefined && !(Array.isArray(roles) && roles.every((role) => typeof role === 'string')))
    return undefined;
  return {
    tenantId,
    ...(userId === undefined ? {} : { userId }),
    ...(roles === undefined ? {} : { roles: roles.map(String) }),
    issuer,
    subject,
  };
}

/** `Set-Cookie` for a new session: HttpOnly, SameSite=Strict, Path=/, Secure over TLS. */
export function sessionCookie(token: string, options: { maxAgeSeconds: number; secure: boolean }): string {
  return (
    `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; ` +
    `Max-Age=${options.maxAgeSeconds}${options.secure ? '; Secure' : ''}`
  );
}

/** `Set-Cookie` that removes the session cookie (same attributes, Max-Age=0). */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return sessionCookie('', { maxAgeSeconds: 0, secure: options.secure });
}

/** The session cookie's value in a `Cookie` header. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (value !== '') return value;
  }
  return undefined;
}

/** Came over TLS, here or (by `X-Forwarded-Proto: https`) at a proxy in front. */
export function isSecureRequest(req: IncomingMessage): boolean {
  if ('encrypted' in req.socket && req.socket.encrypted === true) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}
