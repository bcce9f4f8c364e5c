import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../../core/errors.ts';
import type { Caller } from '../../core/ports/run-service.ts';
import type { AuthThrottle } from '../auth-throttle.ts';
import { HttpError } from '../respond.ts';
import { OidcVerifier } from './oidc-verifier.ts';
import { INVALID_TOKEN, MCP_PATH, resourceBase, resourceFor } from './protected-resource.ts';

/** What checks a bearer JWT: the configured issuers, this server's URL (auth.resource) and the failure throttle. */
export interface TokenAuthContext {
  verifier: OidcVerifier;
  resource: string | undefined;
  throttle: AuthThrottle | undefined;
}

/** Marks a key id as a token caller's: `oidc:` + 16 bytes of sha256(issuer, subject), base64url. */
const KEY_ID_PREFIX = 'oidc:';

/** true when the presented bearer value is to be verified as a token (OIDC configured and the value is a JWT). */
export function isBearerToken(verifier: OidcVerifier | undefined, presented: string): verifier is OidcVerifier {
  return verifier !== undefined && OidcVerifier.looksLikeJwt(presented);
}

/**
 * The caller a bearer JWT stands for, with a stable key id (so gateway session shares count per identity). The
 * accepted audience is this server's URL; on /mcp also the gateway's own resource URL (`<base>/mcp`), which MCP
 * clients request tokens for. A refused token is counted by the throttle like a wrong key; an issuer that cannot be
 * reached is not the caller's fault (503, not counted).
 */
export async function tokenCaller(
  req: IncomingMessage,
  presented: string,
  context: TokenAuthContext,
): Promise<{ caller: Caller; keyId: string }> {
  const { verifier, throttle } = context;
  // Every JWT starts with the same header characters: the throttle counts a token by its signature instead, or one
  // guesser's bad tokens would lock the shared start for everyone whose own token once failed (e.g. expired).
  const counted = presented.slice(presented.lastIndexOf('.') + 1);
  await throttle?.admit(req, counted);
  const base = resourceBase(req, context.resource);
  const path = (req.url ?? '/').split('?')[0];
  const audience = path === MCP_PATH ? [resourceFor(base, MCP_PATH), base] : base;
  try {
    const identity = await verifier.verify(presented, { audience });
    if (req.headers['x-user-id'] !== undefined) {
      throw new ToolgateError(
        'usage',
        'X-User-Id is not allowed with a bearer token: the token names the user (auth.oidc[].userClaim)',
      );
    }
    const digest = createHash('sha256').update(`${identity.issuer}\n${identity.subject}`).digest();
    return { caller: identity.caller, keyId: `${KEY_ID_PREFIX}${digest.subarray(0, 16).toString('base64url')}` };
  } catch (error) {
    if (error instanceof HttpError || !(error instanceof ToolgateError) || error.code !== 'unauthorized') throw error;
    const refusal = await throttle?.failed(req, counted, 'bearer');
    throw refusal ?? new ToolgateError('unauthorized', error.message, { details: { bearerError: INVALID_TOKEN } });
  }
}

/** The caller of a token for GET /v1/session, or undefined when it is refused (only a throttle's 429 is thrown). */
export async function tokenIdentity(
  req: IncomingMessage,
  presented: string,
  context: TokenAuthContext,
): Promise<Caller | undefined> {
  try {
    return (await tokenCaller(req, presented, context)).caller;
  } catch (error) {
    if (error instanceof ToolgateError && error.code === 'rate_limited') throw error;
    return undefined;
  }
}
