import { ToolgateError } from '../../core/errors.ts';
import { describeError } from '../../core/describe-error.ts';
import { isJsonObject } from '../../core/json.ts';
import { HttpError } from '../respond.ts';

/** The fields of an OpenID Provider's discovery document toolgate reads. */
export interface OidcDiscovery {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  jwks_uri: string;
  end_session_endpoint?: string;
}

/** How long one request to an issuer (discovery, keys) may take. */
export const ISSUER_TIMEOUT_MS = 5000;
/** Seconds a client is told to wait when an issuer cannot be reached. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Reads `<issuer>/.well-known/openid-configuration`. Its `issuer` must be the configured one exactly (OpenID Connect
 * Discovery 4.3): a document that names another issuer could point at keys that issuer controls.
 */
export async function fetchDiscovery(issuer: string, fetchImpl: typeof fetch): Promise<OidcDiscovery> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const body = await readJson(url, fetchImpl).catch((error: unknown) => {
    throw issuerUnavailable(issuer, `its discovery document ${url} could not be read (${reason(error)})`);
  });
  if (!isJsonObject(body) || typeof body['jwks_uri'] !== 'string') {
    throw new ToolgateError('unauthorized', `the discovery document of issuer ${issuer} (${url}) names no jwks_uri`);
  }
  if (body['issuer'] !== issuer) {
    throw new ToolgateError(
      'unauthorized',
      `the discovery document at ${url} names issuer ${JSON.stringify(body['issuer'])}, not ${issuer}: ` +
        `set auth.oidc[].issuer to exactly the issuer the provider announces`,
    );
  }
  const text = (key: string): Record<string, string> => {
    const value = body[key];
    return typeof value === 'string' ? { [key]: value } : {};
  };
  return {
    issuer,
    jwks_uri: body['jwks_uri'],
    ...text('authorization_endpoint'),
    ...text('token_endpoint'),
    ...text('end_session_endpoint'),
  };
}

/** 503: the token may well be good, but the issuer's keys cannot be had to check it. The client retries. */
export function issuerUnavailable(issuer: string, detail: string): HttpError {
  return new HttpError({
    status: 503,
    code: 'unauthorized',
    message:
      `bearer token not checked: issuer ${issuer} cannot be reached: ${detail}; ` +
      `retry later, or check that the issuer is up and reachable from this server`,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

async function readJson(url: string, fetchImpl: typeof fetch): Promise<unknown> {
  const response = await fetchImpl(url, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${ISSUER_TIMEOUT_MS} ms`;
  const cause = error instanceof Error && error.cause !== undefined ? `: ${describeError(error.cause)}` : '';
  return `${describeError(error)}${cause}`;
}
