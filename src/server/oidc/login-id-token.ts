import type { JWTPayload } from 'jose';
import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';
import type { ConsoleIssuer } from './login-issuers.ts';
import type { OidcVerifier } from './oidc-verifier.ts';

/**
 * Checks an ID token from the token endpoint (OpenID Connect Core 3.1.3.7): signed by the issuer's published keys,
 * issued by it, for the console client (and, with several audiences, authorized for it: azp), within its lifetime,
 * with the nonce this sign-in sent. Its claims, for when no access token is accepted.
 */
export async function verifyIdToken(options: {
  verifier: OidcVerifier;
  issuer: ConsoleIssuer;
  idToken: string;
  nonce: string;
}): Promise<JWTPayload> {
  const { issuer } = options;
  const clientId = issuer.console.clientId;
  let payload: JWTPayload;
  try {
    // The issuer's keys and rules, as for its bearer tokens; the audience is the console client.
    payload = await options.verifier.verifySigned(options.idToken, {
      issuer,
      audience: clientId,
      requiredClaims: ['exp', 'sub'],
    });
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
