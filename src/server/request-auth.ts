import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../core/errors.ts';
import type { Caller } from '../core/ports/run-service.ts';
import { bearerToken, callerFor, createAuthenticator, createKeyIndex, type ApiKeyEntry, type Authenticate, type KeyIndex } from './auth.ts';
import { CSRF_HEADER, readSessionCookie, SessionSigner, type Session } from './session.ts';

/** Who a request is, as GET /v1/session reports it. */
export type Identity =
  | { via: 'anonymous'; caller: Caller }
  | { via: 'bearer'; caller: Caller }
  | { via: 'session'; caller: Caller; session: Session };

/** Methods a cookie may authenticate without the CSRF header: they change nothing. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * How requests prove who they are: `Authorization: Bearer <key>`, or the
 * session cookie a browser got from POST /v1/session. A bearer header wins
 * when both are sent. A session stands for an API key entry by fingerprint:
 * removing the key from the config ends its sessions.
 */
export class RequestAuth {
  readonly keysRequired: boolean;
  readonly sessions: SessionSigner;
  readonly #keys: KeyIndex;
  readonly #bearer: Authenticate;

  constructor(options: { apiKeys: readonly ApiKeyEntry[]; sessionSecret?: string | undefined; sessionTtlSeconds?: number | undefined; now?: () => number }) {
    this.#keys = createKeyIndex(options.apiKeys);
    this.#bearer = createAuthenticator(options.apiKeys);
    this.keysRequired = options.apiKeys.length > 0;
    this.sessions = new SessionSigner({ secret: options.sessionSecret, ttlSeconds: options.sessionTtlSeconds, ...(options.now === undefined ? {} : { now: options.now }) });
  }

  /**
   * The caller of a route that needs auth. A cookie-authenticated request
   * that may change something (not GET/HEAD) must carry X-CSRF-Token: a page
   * of another site can make the browser send the cookie, never read the token.
   */
  authenticate(req: IncomingMessage): Caller {
    const { headers } = req;
    if (!this.keysRequired || headers.authorization !== undefined) return this.#bearer(headers);
    const token = readSessionCookie(headers.cookie);
    if (token === undefined) return this.#bearer(headers);
    const signedIn = this.#verify(token);
    if (signedIn === undefined) {
      throw new ToolgateError('unauthorized', 'the session has expired or is no longer valid (its key was removed, or the server secret changed): sign in again with POST /v1/session');
    }
    if (!SAFE_METHODS.has(req.method ?? 'GET') && !this.sessions.csrfMatches(signedIn.session.id, headerValue(headers[CSRF_HEADER.toLowerCase()]))) {
      throw new ToolgateError(
        'forbidden',
        `a request signed in with the session cookie must send the header ${CSRF_HEADER} with the csrfToken from POST /v1/session (or GET /v1/session), or use "Authorization: Bearer <key>" instead`,
      );
    }
    return callerFor(signedIn.entry, headers);
  }

  /** Who the request is, or undefined; never throws (X-User-Id is not read here). */
  identify(req: IncomingMessage): Identity | undefined {
    if (!this.keysRequired) return { via: 'anonymous', caller: {} };
    const { headers } = req;
    if (headers.authorization !== undefined) {
      const presented = bearerToken(headers.authorization);
      const entry = presented === undefined ? undefined : this.#keys.byKey(presented);
      return entry === undefined ? undefined : { via: 'bearer', caller: keyCaller(entry) };
    }
    const token = readSessionCookie(headers.cookie);
    const signedIn = token === undefined ? undefined : this.#verify(token);
    return signedIn === undefined ? undefined : { via: 'session', caller: keyCaller(signedIn.entry), session: signedIn.session };
  }

  /** The entry of an API key presented to sign in (compared like a bearer key). */
  keyEntry(apiKey: string): ApiKeyEntry | undefined {
    return this.#keys.byKey(apiKey);
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
