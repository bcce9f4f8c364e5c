import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';

/** How long the issuer's token endpoint may take to answer. */
export const TOKEN_EXCHANGE_TIMEOUT_MS = 10_000;

/** The tokens an authorization code bought. */
export interface ExchangedTokens {
  idToken: string;
  /** Absent when the issuer sent none (it is used only when it is a JWT this server accepts). */
  accessToken?: string;
}

/**
 * Trades an authorization code at the token endpoint (RFC 6749 4.1.3 with the PKCE code_verifier). A confidential
 * client authenticates with HTTP Basic (client_secret_basic, the default method); a public one names itself in the
 * body. Refusals say what the issuer said.
 */
export async function exchangeCode(options: {
  tokenEndpoint: string;
  code: string;
  verifier: string;
  redirectUri: string;
  clientId: string;
  clientSecret?: string | undefined;
  fetchImpl?: typeof fetch;
}): Promise<ExchangedTokens> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: options.code,
    code_verifier: options.verifier,
    redirect_uri: options.redirectUri,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (options.clientSecret === undefined) body.set('client_id', options.clientId);
  else {
    const encode = (text: string): string => encodeURIComponent(text).replace(/%20/g, '+');
    const basic = Buffer.from(`${encode(options.clientId)}:${encode(options.clientSecret)}`, 'utf8');
    headers['authorization'] = `Basic ${basic.toString('base64')}`;
  }
  let response: Response;
  try {
    response = await (options.fetchImpl ?? fetch)(options.tokenEndpoint, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(TOKEN_EXCHANGE_TIMEOUT_MS),
    });
  } catch (error) {
    const detail = describeError(error);
    throw new ToolgateError(
      'unauthorized',
      `the issuer's token endpoint ${options.tokenEndpoint} could not be reached (${detail}): ` +
        `check that the issuer is up and reachable from this server, then sign in again`,
    );
  }
  const answer: unknown = await response.json().catch(() => undefined);
  if (!response.ok || !isJsonObject(answer) || typeof answer['id_token'] !== 'string') {
    const said = isJsonObject(answer) && typeof answer['error'] === 'string' ? describeOAuthError(answer) : undefined;
    throw new ToolgateError(
      'unauthorized',
      said === undefined
        ? `the issuer's token endpoint answered HTTP ${response.status} without an ID token: check that the ` +
            `console client (auth.oidc[].console.clientId) may use the authorization code flow with scope openid`
        : `the issuer refused to trade the sign-in code (${said}): check the console client's settings at the ` +
            `issuer (redirect URI, client secret), then sign in again`,
    );
  }
  const accessToken = answer['access_token'];
  return { idToken: answer['id_token'], ...(typeof accessToken === 'string' ? { accessToken } : {}) };
}

function describeOAuthError(answer: Record<string, unknown>): string {
  const description = answer['error_description'];
  return typeof description === 'string' ? `${String(answer['error'])}: ${description}` : String(answer['error']);
}
