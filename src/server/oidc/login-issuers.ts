import { ToolgateError } from '../../core/errors.ts';
import type { OidcIssuerOptions, OidcVerifier } from './oidc-verifier.ts';

/** An issuer the console signs in with: one whose `auth.oidc[]` entry has `console`. */
export type ConsoleIssuer = OidcIssuerOptions & { console: NonNullable<OidcIssuerOptions['console']> };

/** The issuers with a console client, in the configured order. */
export function consoleIssuers(verifier: OidcVerifier | undefined): ConsoleIssuer[] {
  const found: ConsoleIssuer[] = [];
  for (const issuer of verifier?.issuers ?? []) {
    const { console } = issuer;
    if (console !== undefined) found.push({ ...issuer, console });
  }
  return found;
}

/**
 * The console issuer a sign-in names: by issuer URL or by its index in `auth.oidc`; may be left out when only one
 * issuer has a console client. 400 saying which ones there are otherwise.
 */
export function consoleIssuer(
  verifier: OidcVerifier | undefined,
  wanted: string | undefined,
): { verifier: OidcVerifier; issuer: ConsoleIssuer } {
  const candidates = consoleIssuers(verifier);
  if (verifier === undefined || candidates.length === 0) {
    throw new ToolgateError(
      'usage',
      'console sign-in is not configured: give an auth.oidc[] issuer a console client (console.clientId)',
    );
  }
  const listed = candidates.map((candidate) => candidate.issuer).join(', ');
  if (wanted === undefined) {
    const [only] = candidates;
    if (candidates.length === 1 && only !== undefined) return { verifier, issuer: only };
    throw new ToolgateError('usage', `several issuers can sign in: name one with ?issuer= (${listed})`);
  }
  const byIndex = /^(0|[1-9][0-9]{0,3})$/.test(wanted) ? verifier.issuers[Number(wanted)]?.issuer : undefined;
  const issuer = candidates.find((candidate) => candidate.issuer === (byIndex ?? wanted));
  if (issuer === undefined) {
    throw new ToolgateError(
      'usage',
      `issuer ${JSON.stringify(wanted)} has no console client here (these do: ${listed})`,
    );
  }
  return { verifier, issuer };
}
