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
import { CSRF_HEADER, readSessionCookie, SessionSigner, type Session } from './session.ts';

/** Who a request is, as GET /v1/session reports it. */
export type Identity =
  | { via: 'anonymous'; caller: Caller }
  | { via: 'bearer'; caller: Caller }
  | { via: 'session'; caller: Caller; session: Session };

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
  readonly #keys: KeyIndex;
  readonly #bearer: Authenticate;
  readonly #throttle: AuthThrottle | undefined;

  constructor(options: {
    apiKeys: readonly ApiKeyEntry[];
    sessionSecret?: string | undefined;
    sessionTtlSeconds?: number | undefined;
    now?: () => number;
    throttle?: AuthThrottle | undefined;
  }) {
    this.#throttle = options.throttle;
    this.#keys = createKeyIndex(options.apiKeys);
    this.#bearer = createAuthenticator(options.apiKeys);
    this.keysRequired = options.apiKeys.length > 0;
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
      if (presented === undefined) return { caller: this.#bearer(headers), keyId: undefined };
      const entry = await this.#checked(req, presented, 'bearer');
      return { caller: callerFor(entry, headers), keyId: keyFingerprint(entry.key) };
    }
    const token = readSessionCookie(headers.cookie);
    if (token === undefined) return { caller: this.#bearer(headers), keyId: undefined };
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
      await this.#throttle?.admit(req, presented);
      const entry = this.#keys.byKey(presented);
      if (entry !== undefined) return { via: 'bearer', caller: keyCaller(entry) };
      const refusal = await this.#throttle?.failed(req, presented, 'bearer');
      if (refusal !== undefined) throw refusal;
      return undefined;
    }
    const token = readSessionCookie(headers.cookie);
    const signedIn = token === undefined ? undefined : this.#verify(token);
    return signedIn === undefined
      ? undefined
      : { via: 'session', caller: keyCaller(signedIn.entry), session: signedIn.session };
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

  #verify(token: string): { session: Session; entry: ApiKeyEntry } | undefined {
    const session = this.sessions.verify(token);
    const entry = session === undefined ? undefined : this.#keys.byFingerprint(session.fingerprint);
    return session === undefined || entry === undefined ? undefined : { session, entry };
  }
}

function keyCaller(entry: ApiKeyEntry): Caller {
  return entry.userId === undefined ? { tenantId: entry.tenantId } : { tenantId: entry.tenantId, userId: entry.userId };
}

function headerValue(raw: string | string[] | undefined): string | undefined {
  return Array.isArray(raw) ? raw[0] : raw;
}
