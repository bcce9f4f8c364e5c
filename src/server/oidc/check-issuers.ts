import { describeError } from '../../core/describe-error.ts';
import type { OidcVerifier } from './oidc-verifier.ts';

/**
 * Reads every issuer's discovery document once at start: an issuer that cannot be reached is said now (its tokens
 * are refused with a clear error until it answers), without stopping the server.
 */
export async function checkIssuers(verifier: OidcVerifier, warn: (message: string) => void): Promise<void> {
  await Promise.all(
    verifier.issuers.map(async ({ issuer, jwksUri }) => {
      if (jwksUri !== undefined) return;
      try {
        await verifier.discovery(issuer);
      } catch (error) {
        warn(`auth.oidc issuer ${issuer}: ${describeError(error)} (its tokens are refused until it answers)`);
      }
    }),
  );
}
