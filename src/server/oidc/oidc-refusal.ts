import { errors, type JWTPayload } from 'jose';
import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';
import { issuerUnavailable } from './oidc-discovery.ts';

/** What the check was about, to say precisely why a token was refused. */
export interface RefusalContext {
  issuer: string;
  audience: string | string[];
  algorithms: readonly string[];
  clockTolerance: number;
  /** The token's claims as sent (unverified: only quoted back). */
  claims: JWTPayload;
}

/** jose's failure as a 401 that says what was wrong (or a 503 when the issuer's keys could not be fetched). */
export function refusalFor(error: unknown, context: RefusalContext): ToolgateError {
  const { claims } = context;
  if (error instanceof errors.JWTExpired) {
    return refused(
      `expired at ${instant(claims.exp)} (now ${new Date().toISOString()}, ` +
        `clock tolerance ${context.clockTolerance} s): get a new token from the issuer`,
    );
  }
  if (error instanceof errors.JWTClaimValidationFailed) return claimRefusal(error, context);
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return refused(`signature does not verify with the issuer's keys (${context.issuer})`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return refused(
      `signature does not verify with the issuer's keys: none of them has the token's key id ` +
        `(the issuer may have rotated its keys; get a new token)`,
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refused(`its algorithm is not accepted (allowed: ${context.algorithms.join(', ')}; auth.oidc[].algorithms)`);
  }
  if (error instanceof errors.JWKSTimeout)
    return issuerUnavailable(context.issuer, 'its key set did not answer in time');
  if (error instanceof errors.JWKSInvalid) return issuerUnavailable(context.issuer, 'its key set is not a valid JWKS');
  if (error instanceof errors.JOSEError) return refused(`${error.message} (${error.code})`);
  // Not jose's own: the key set request failed (connection refused, DNS, HTTP error status).
  return issuerUnavailable(context.issuer, `its key set could not be fetched (${describeError(error)})`);
}

function claimRefusal(error: errors.JWTClaimValidationFailed, context: RefusalContext): ToolgateError {
  const { claims } = context;
  switch (error.claim) {
    case 'aud':
      return refused(
        `audience ${JSON.stringify(claims.aud ?? null)} not accepted (expected ${listed(context.audience)}; ` +
          `request the token for this resource, or set auth.oidc[].audience)`,
      );
    case 'nbf':
      return refused(
        `not valid before ${instant(claims.nbf)} (now ${new Date().toISOString()}, ` +
          `clock tolerance ${context.clockTolerance} s; check the clocks)`,
      );
    case 'iss':
      return refused(`issuer ${JSON.stringify(claims.iss ?? null)} does not match ${context.issuer}`);
    case 'exp':
      return refused(`its "exp" claim is missing or not a number`);
    default:
      return refused(`claim "${error.claim}" ${error.reason}: ${error.message}`);
  }
}

function listed(audience: string | string[]): string {
  return typeof audience === 'string' ? audience : audience.join(' or ');
}

function instant(seconds: number | undefined): string {
  return seconds === undefined ? 'an unknown time' : new Date(seconds * 1000).toISOString();
}

function refused(reason: string): ToolgateError {
  return new ToolgateError('unauthorized', `bearer token refused: ${reason}`);
}
