import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';
import { ISSUER_TIMEOUT_MS } from './oidc-discovery.ts';
import type { ConsoleIssuer } from './login-issuers.ts';

// The same rule as for bearer tokens: asymmetric signatures only.
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

type KeySet = ReturnType<typeof createRemoteJWKSet>;
const keySets = new Map<string, KeySet>();

/**
 * Checks an ID token from the token endpoint (OpenID Connect Core 3.1.3.7): signed by the issuer's published keys,
 * issued by it, for the console client (and, with several audiences, authorized for it: azp), within its lifetime,
 * with the nonce this sign-in sent. Its claims, for when no access token is accepted.
 */
export async function verifyIdToken(options: {
  issuer: ConsoleIssuer;
  jwksUri: string;
  idToken: string;
  nonce: string;
}): Promise<JWTPayload> {
  const { issuer } = options;
  const clientId = issuer.console.clientId;
  let keys = keySets.get(options.jwksUri);
  if (keys === undefined) {
    keys = createRemoteJWKSet(new URL(options.jwksUri), { timeoutDuration: ISSUER_TIMEOUT_MS });
    keySets.set(options.jwksUri, keys);
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(options.idToken, keys, {
      issuer: issuer.issuer,
      audience: clientId,
      algorithms: issuer.algorithms ?? ASYMMETRIC,
      clockTolerance: issuer.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    const detail = describeError(error);
    throw new ToolgateError(
      'unauthorized',
      `the issuer's ID token was refused (${detail}): check auth.oidc[].issuer and console.clientId, and the clocks`,
    );
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload['azp'] !== clientId) {
    throw new ToolgateError('unauthorized', `the ID token is not authorized for client ${clientId} (azp)`);
  }
  if (payload['nonce'] !== options.nonce) {
    throw new ToolgateError('unauthorized', 'the ID token does not carry the nonce this sign-in sent: start again');
  }
  return payload;
}
