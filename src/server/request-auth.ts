import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../core/errors.ts';
import type { Caller } from '../core/ports/run-service.ts';
import {
  bearerToken,
  callerFor,
  createAuthenticator,
  createKeyIndex,
  keyFingerprint,
  type ApiKeyEntry,
  type Authenticate,
  type KeyIndex,
} from './auth.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import type { OidcVerifier } from './oidc/oidc-verifier.ts';
import { isBearerToken, tokenCaller, tokenIdentity, type TokenAuthContext } from './oidc/token-auth.ts';
import {
  CSRF_HEADER,
  readSessionCookie,
  SessionSigner,
  type IdentitySession,
  type Session,
  type SessionIdentity,
} from './session.ts';

/** Who a request is, as GET /v1/session reports it. */
export type Identity =
  | { via: 'anonymous'; caller: Caller }
  | { via: 'bearer'; caller: Caller }
  | { via: 'session'; caller: Caller; session: Session | IdentitySession };

/** A caller and the fingerprint of the API key it authenticated with (none for the anonymous caller). */
export interface KeyedCaller {
  caller: Caller;
  keyId: string | undefined;
}

const INVALID_KEY = 'invalid API key: check the key configured for your tenant (tenants.<id>.apiKeys)';

/** Methods a cookie may authenticate without the CSRF header: they change nothing. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * How requests prove who they are: `Authorization: Bearer <key>`, or the
 * session cookie a browser got from POST /v1/session. A bearer header wins
 * when both are sent. A session stands for an API key entry by fingerprint:
 * removing the key from the config ends its sessions. With a throttle, every
 * presented key passes through it: failures are counted and slow the guesser.
 */
export class RequestAuth {
  readonly keysRequired: boolean;
  readonly sessions: SessionSigner;
  /** The trusted OpenID Connect issuers (auth.oidc), when configured; the console signs in with theirs. */
  readonly oidc: OidcVerifier | undefined;
  /** auth.resource: the URL this server is known by (absent: each request's own origin). */
  readonly resource: string | undefined;
  readonly #keys: KeyIndex;
  readonly #bearer: Authenticate;
  readonly #throttle: AuthThrottle | undefined;

  constructor(options: {
    apiKeys: readonly ApiKeyEntry[];
    sessionSecret?: string | undefined;
    sessionTtlSeconds?: number | undefined;
    now?: () => number;
    throttle?: AuthThrottle | undefined;
    oidc?: OidcVerifier | undefined;
    resource?: string | undefined;
  }) {
    this.#throttle = options.throttle;
    this.oidc = options.oidc;
    this.resource = options.resource;
    this.#keys = createKeyIndex(options.apiKeys);
    this.#bearer = createAuthenticator(options.apiKeys);
    // Trusted issuers make auth required as keys do: every caller then shows a key or a token.
    this.keysRequired = options.apiKeys.length > 0 || options.oidc !== undefined;
    this.sessions = new SessionSigner({
      secret: options.sessionSecret,
      ttlSeconds: options.sessionTtlSeconds,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  /**
   * The caller of a route that needs auth. A cookie-authenticated request
   * that may change something (not GET/HEAD) must carry X-CSRF-Token: a page
   * of another site can make the browser send the cookie, never read the token.
   */
  async authenticate(req: IncomingMessage): Promise<Caller> {
    return (await this.authenticateKeyed(req)).caller;
  }

  /** authenticate, also naming the key (its fingerprint): a gateway session counts against its key's share. */
  async authenticateKeyed(req: IncomingMessage): Promise<KeyedCaller> {
    const { headers } = req;
    if (!this.keysRequired) return { caller: this.#bearer(headers), keyId: undefined };
    if (headers.authorization !== undefined) {
      const presented = bearerToken(headers.authorization);
      // No key in the header (or not a bearer one): nothing was guessed; the authenticator says what is missing.
      if (presented === undefined) return { caller: this.#missing(headers), keyId: undefined };
      // A JWT is a token of a trusted issuer (auth.oidc); anything else is looked up as an API key.
      if (isBearerToken(this.oidc, presented)) return tokenCaller(req, presented, this.#tokens(this.oidc));
      const entry = await this.#checked(req, presented, 'bearer');
      return { caller: callerFor(entry, headers), keyId: keyFingerprint(entry.key) };
    }
    const token = readSessionCookie(headers.cookie);
    if (token === undefined) return { caller: this.#missing(headers), keyId: undefined };
    const signedIn = this.#verify(token);
    if (signedIn === undefined) {
      throw new ToolgateError(
        'unauthorized',
        'the session has expired or is no longer valid (its key was removed, ' +
          'or the server secret changed): sign in again with POST /v1/session',
      );
    }
    if (
      !SAFE_METHODS.has(req.method ?? 'GET') &&
      !this.sessions.csrfMatches(signedIn.session.id, headerValue(headers[CSRF_HEADER.toLowerCase()]))
    ) {
      throw new ToolgateError(
        'forbidden',
        `a request signed in with the session cookie must send the header ${CSRF_HEADER} with the ` +
          `csrfToken from POST /v1/session (or GET /v1/session), or use "Authorization: Bearer <key>" instead`,
      );
    }
    if (!('entry' in signedIn)) return { caller: identityCaller(signedIn.session.identity), keyId: undefined };
    return { caller: callerFor(signedIn.entry, headers), keyId: signedIn.session.fingerprint };
  }

  /**
   * Who the request is, or undefined (X-User-Id is not read here). Throws only
   * the throttle's 429: a bearer key presented here is a guess like any other.
   */
  async identify(req: IncomingMessage): Promise<Identity | undefined> {
    if (!this.keysRequired) return { via: 'anonymous', caller: {} };
    const { headers } = req;
    if (headers.authorization !== undefined) {
      const presented = bearerToken(headers.authorization);
      if (presented === undefined) return undefined;
      if (isBearerToken(this.oidc, presented)) {
        const caller = await tokenIdentity(req, presented, this.#tokens(this.oidc));
        return caller === undefined ? undefined : { via: 'bearer', caller };
      }
      await this.#throttle?.admit(req, presented);
      const entry = this.#keys.byKey(presented);
      if (entry !== undefined) return { via: 'bearer', caller: keyCaller(entry) };
      const refusal = await this.#throttle?.failed(req, presented, 'bearer');
      if (refusal !== undefined) throw refusal;
      return undefined;
    }
    const token = readSessionCookie(headers.cookie);
    const signedIn = token === undefined ? undefined : this.#verify(token);
    if (signedIn === undefined) return undefined;
    const caller = 'entry' in signedIn ? keyCaller(signedIn.entry) : identityCaller(signedIn.session.identity);
    return { via: 'session', caller, session: signedIn.session };
  }

  /**
   * The entry of an API key presented to sign in (compared, and throttled, like a bearer key); 401 or 429 when it is
   * wrong.
   */
  async signInEntry(req: IncomingMessage, apiKey: string): Promise<ApiKeyEntry> {
    return this.#checked(req, apiKey, 'sign_in');
  }

  /** The entry of a presented key, compared only when the throttle lets it through; a wrong one is counted. */
  async #checked(req: IncomingMessage, presented: string, via: 'bearer' | 'sign_in'): Promise<ApiKeyEntry> {
    await this.#throttle?.admit(req, presented);
    const entry = this.#keys.byKey(presented);
    if (entry !== undefined) return entry;
    throw (await this.#throttle?.failed(req, presented, via)) ?? new ToolgateError('unauthorized', INVALID_KEY);
  }

  /** The 401 of a request that shows neither key nor token (with only issuers configured, no key is asked for). */
  #missing(headers: IncomingMessage['headers']): never {
    if (this.#keys.size === 0) {
      throw new ToolgateError(
        'unauthorized',
        'missing bearer token: send "Authorization: Bearer <token>" with an access token of a trusted issuer ' +
          '(auth.oidc), requested for this server as its resource (audience)',
      );
    }
    this.#bearer(headers);
    throw new ToolgateError('unauthorized', 'missing API key');
  }

  #tokens(verifier: OidcVerifier): TokenAuthContext {
    return { verifier, resource: this.resource, throttle: this.#throttle };
  }

  /** A key session (its key still configured), or a session that carries an identity an issuer vouched for. */
  #verify(token: string): { session: Session; entry: ApiKeyEntry } | { session: IdentitySession } | undefined {
    const identity = this.sessions.verifyIdentity(token);
    if (identity !== undefined) return { session: identity };
    const session = this.sessions.verify(token);
    const entry = session === undefined ? undefined : this.#keys.byFingerprint(session.fingerprint);
    return session === undefined || entry === undefined ? undefined : { session, entry };
  }
}

function keyCaller(entry: ApiKeyEntry): Caller {
  return {
    tenantId: entry.tenantId,
    ...(entry.userId === undefined ? {} : { userId: entry.userId }),
    ...(entry.roles === undefined || entry.roles.length === 0 ? {} : { roles: [...entry.roles] }),
  };
}

/** A session opened through an issuer: the identity it was signed with (X-User-Id never applies). */
function identityCaller(identity: SessionIdentity): Caller {
  return {
    tenantId: identity.tenantId,
    ...(identity.userId === undefined ? {} : { userId: identity.userId }),
    ...(identity.roles === undefined ? {} : { roles: identity.roles }),
  };
}

function headerValue(raw: string | string[] | undefined): string | undefined {
  return Array.isArray(raw) ? raw[0] : raw;
}
