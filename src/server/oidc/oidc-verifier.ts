import { createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { ToolgateError } from '../../core/errors.ts';
import type { Caller } from '../../core/ports/run-service.ts';
import { INSUFFICIENT_SCOPE } from './protected-resource.ts';
import { callerFromClaims, tokenScopes } from './oidc-claims.ts';
import { fetchDiscovery, ISSUER_TIMEOUT_MS, type OidcDiscovery } from './oidc-discovery.ts';
import { refusalFor } from './oidc-refusal.ts';

export type { OidcDiscovery } from './oidc-discovery.ts';

/** One trusted issuer: the `auth.oidc[]` entry of the config (docs/security.md, "OAuth 2.1 / OpenID Connect"). */
export interface OidcIssuerOptions {
  issuer: string;
  audience?: string | string[] | undefined;
  tenantClaim?: string | undefined;
  tenant?: string | undefined;
  userClaim?: string | undefined;
  rolesClaim?: string | undefined;
  requiredScopes?: string[] | undefined;
  clockToleranceSeconds?: number | undefined;
  jwksUri?: string | undefined;
  algorithms?: string[] | undefined;
  jwksCooldownMs?: number | undefined;
  console?: { clientId: string; clientSecret?: string | undefined; scopes?: string[] | undefined } | undefined;
}

/** Who a verified token is. */
export interface OidcIdentity {
  caller: Caller;
  issuer: string;
  subject: string;
  /** When the token expires, in ms since the epoch. */
  expiresAt: number;
}

/** Asymmetric algorithms only: a shared-secret (HS*) or unsigned (none) token is never accepted. */
const DEFAULT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;
const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * A resource server's check of bearer JWTs (RFC 9068, the MCP authorization specification): the issuer is one of the
 * configured ones, the signature verifies with that issuer's published keys, the audience is this server, the token
 * is within its lifetime, and its claims name an acceptable tenant, user and roles.
 */
export class OidcVerifier {
  readonly issuers: readonly OidcIssuerOptions[];
  readonly #resource: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #discoveries = new Map<string, Promise<OidcDiscovery>>();
  readonly #keySets = new Map<string, Promise<KeySet>>();

  constructor(options: { issuers: OidcIssuerOptions[]; resource?: string | undefined; fetch?: typeof fetch }) {
    this.issuers = options.issuers;
    this.#resource = options.resource;
    this.#fetch = options.fetch ?? fetch;
  }

  /** true when the value looks like a JWT (three base64url parts): only those are verified as tokens. */
  static looksLikeJwt(value: string): boolean {
    return JWT_SHAPE.test(value);
  }

  /** Verifies a bearer JWT and maps its claims to a caller; ToolgateError('unauthorized', why) when refused. */
  async verify(token: string, options: { audience?: string | string[] } = {}): Promise<OidcIdentity> {
    const claims = unverifiedClaims(token);
    const issuer = this.issuers.find((candidate) => candidate.issuer === claims.iss);
    if (issuer === undefined) {
      const known = this.issuers.map((candidate) => candidate.issuer).join(', ');
      throw refused(
        `issuer ${JSON.stringify(claims.iss ?? null)} not configured (auth.oidc[].issuer; configured: ${known})`,
      );
    }
    const audience = issuer.audience ?? options.audience ?? this.#resource;
    if (audience === undefined) {
      throw refused(`no audience to check the token against: set auth.resource or auth.oidc[].audience`);
    }
    const payload = await this.verifySigned(token, { issuer, audience });
    const scopes = tokenScopes(payload);
    const missing = (issuer.requiredScopes ?? []).filter((scope) => !scopes.has(scope));
    if (missing.length > 0) {
      // A good token without the scope: 403 with `error="insufficient_scope"` (RFC 6750 §3.1), so an MCP client asks
      // the issuer again for the scope instead of giving up.
      throw new ToolgateError(
        'forbidden',
        `bearer token refused: it lacks the scope(s) ${missing.join(', ')} (auth.oidc[].requiredScopes): ` +
          'ask the issuer for a token with them',
        { details: { bearerError: INSUFFICIENT_SCOPE, scope: missing.join(' ') } },
      );
    }
    const caller = callerFromClaims(payload, issuer);
    return {
      caller,
      issuer: issuer.issuer,
      subject: payload.sub ?? caller.userId ?? '',
      expiresAt: (payload.exp ?? Number.MAX_SAFE_INTEGER / 1000) * 1000,
    };
  }

  /**
   * Checks a JWT of `issuer` for `audience` by that issuer's rules: signed with its published keys and an accepted
   * algorithm, `iss`, `aud`, within its lifetime (clock tolerance), `requiredClaims` present. Its claims, not mapped
   * (the console's sign-in checks its ID token so); ToolgateError('unauthorized', why) when refused.
   */
  async verifySigned(
    token: string,
    options: { issuer: OidcIssuerOptions; audience: string | string[]; requiredClaims?: string[] },
  ): Promise<JWTPayload> {
    const { issuer, audience } = options;
    const algorithms = issuer.algorithms ?? DEFAULT_ALGORITHMS;
    const clockTolerance = issuer.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    const keys = await this.#keySet(issuer);
    try {
      const checks = { issuer: issuer.issuer, audience, algorithms, clockTolerance };
      const requiredClaims = options.requiredClaims === undefined ? {} : { requiredClaims: options.requiredClaims };
      return (await jwtVerify(token, keys, { ...checks, ...requiredClaims })).payload;
    } catch (error) {
      const claims = unverifiedClaims(token);
      throw refusalFor(error, { issuer: issuer.issuer, audience, algorithms, clockTolerance, claims });
    }
  }

  /** The issuer's discovery document, read once (a failed read is tried again on the next call). */
  async discovery(issuer: string): Promise<OidcDiscovery> {
    let pending = this.#discoveries.get(issuer);
    if (pending === undefined) {
      pending = fetchDiscovery(issuer, this.#fetch);
      this.#discoveries.set(issuer, pending);
      pending.catch(() => this.#discoveries.delete(issuer));
    }
    return pending;
  }

  /** jose's remote key set: cached, fetched again on an unknown kid at most every jwksCooldownMs. */
  async #keySet(issuer: OidcIssuerOptions): Promise<KeySet> {
    let pending = this.#keySets.get(issuer.issuer);
    if (pending === undefined) {
      pending = this.#jwksUri(issuer).then((uri) =>
        createRemoteJWKSet(new URL(uri), {
          timeoutDuration: ISSUER_TIMEOUT_MS,
          cooldownDuration: issuer.jwksCooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
          [customFetch]: (url, init) => this.#fetch(url, init),
        }),
      );
      this.#keySets.set(issuer.issuer, pending);
      pending.catch(() => this.#keySets.delete(issuer.issuer));
    }
    return pending;
  }

  async #jwksUri(issuer: OidcIssuerOptions): Promise<string> {
    return issuer.jwksUri ?? (await this.discovery(issuer.issuer)).jwks_uri;
  }
}

/** The claims before any check, only to choose the issuer; a value that is no JWT is refused here. */
function unverifiedClaims(token: string): JWTPayload {
  try {
    decodeProtectedHeader(token);
    return decodeJwt(token);
  } catch {
    throw refused('the bearer value is not a well-formed JWT (header.payload.signature, base64url)');
  }
}

function refused(reason: string): ToolgateError {
  return new ToolgateError('unauthorized', `bearer token refused: ${reason}`);
}
