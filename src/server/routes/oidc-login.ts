import type { IncomingMessage } from 'node:http';
import type { JWTPayload } from 'jose';
import type { Caller } from '../../core/ports/run-service.ts';
import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';
import { HttpError } from '../respond.ts';
import type { RequestContext } from '../server-context.ts';
import { isSecureRequest, sessionCookie } from '../session.ts';
import { exchangeCode } from '../oidc/login-exchange.ts';
import { sendLoginProblem, type LoginProblem } from '../oidc/login-page.ts';
import { authorizationUrl, DEFAULT_CONSOLE_SCOPES } from '../oidc/login-request.ts';
import {
  clearedLoginStateCookie,
  loginStateCookie,
  newLoginSecrets,
  openLoginState,
  readLoginStateCookie,
  sealLoginState,
  type LoginState,
} from '../oidc/login-state.ts';
import { verifyIdToken } from '../oidc/login-id-token.ts';
import { consoleIssuer, consoleIssuers, type ConsoleIssuer } from '../oidc/login-issuers.ts';
import { callerFromClaims } from '../oidc/oidc-claims.ts';
import { OidcVerifier } from '../oidc/oidc-verifier.ts';
import type { SessionIdentity } from '../session.ts';

/** Where the issuer sends the browser back to (register `<base>/v1/auth/callback` at the issuer). */
export const CALLBACK_PATH = '/v1/auth/callback';
/** The console route a sign-in returns to when none (or an unusable one) is given. */
const DEFAULT_RETURN = '#/runs';
const RETURN_PATTERN = /^#\/[A-Za-z0-9._~/-]{0,200}$/;

/** What GET /v1/session offers a signed-out console: one button per issuer with a console client. */
export function signInChoices(ctx: RequestContext): { issuer: string; url: string }[] {
  return consoleIssuers(ctx.state.auth.oidc).map(({ issuer }) => ({
    issuer,
    url: `/v1/auth/login?issuer=${encodeURIComponent(issuer)}`,
  }));
}

/**
 * GET /v1/auth/login: sends the browser to the issuer (authorization code with PKCE). Its state, nonce and code
 * verifier go into a signed, HttpOnly cookie for the callback; nothing is stored here.
 */
export async function startLogin(ctx: RequestContext): Promise<void> {
  try {
    const query = loginQuery(ctx.url);
    const { verifier, issuer } = consoleIssuer(ctx.state.auth.oidc, query.issuer);
    const discovery = await verifier.discovery(issuer.issuer);
    if (discovery.authorization_endpoint === undefined) {
      throw new ToolgateError(
        'unauthorized',
        `the discovery document of ${issuer.issuer} names no authorization_endpoint: this issuer cannot sign people in`,
      );
    }
    const base = baseUrl(ctx);
    const login: LoginState = { ...newLoginSecrets(), issuer: issuer.issuer, returnTo: query.returnTo };
    const location = authorizationUrl({
      authorizationEndpoint: discovery.authorization_endpoint,
      clientId: issuer.console.clientId,
      redirectUri: `${base}${CALLBACK_PATH}`,
      scopes: issuer.console.scopes ?? DEFAULT_CONSOLE_SCOPES,
      resource: resourceOf(ctx),
      ...login,
    });
    ctx.res.writeHead(302, {
      Location: location,
      'Set-Cookie': loginStateCookie(sealLoginState(ctx.state.auth.sessions, login), { secure: isSecure(ctx) }),
      'Cache-Control': 'no-store',
    });
    ctx.res.end();
  } catch (error) {
    ctx.state.log({ level: 'warn', msg: 'console sign-in could not start', error: describeError(error) });
    sendLoginProblem(ctx.res, problemOf(error, 'The sign-in could not start'));
  }
}

/**
 * GET /v1/auth/callback: checks the state against the cookie, trades the code, verifies the ID token (audience: the
 * console client; its nonce) and prefers an access token this server accepts for the identity; then the console
 * session cookie, and back to the console.
 */
export async function finishLogin(ctx: RequestContext): Promise<void> {
  const secure = isSecure(ctx);
  ctx.res.setHeader('Set-Cookie', clearedLoginStateCookie({ secure }));
  try {
    const login = checkedLogin(ctx);
    const code = ctx.url.searchParams.get('code') ?? '';
    const { verifier, issuer } = consoleIssuer(ctx.state.auth.oidc, login.issuer);
    const discovery = await verifier.discovery(issuer.issuer);
    if (discovery.token_endpoint === undefined) {
      throw new ToolgateError('unauthorized', `the discovery document of ${issuer.issuer} names no token_endpoint`);
    }
    const tokens = await exchangeCode({
      tokenEndpoint: discovery.token_endpoint,
      code,
      verifier: login.verifier,
      redirectUri: `${baseUrl(ctx)}${CALLBACK_PATH}`,
      clientId: issuer.console.clientId,
      clientSecret: issuer.console.clientSecret,
    });
    const idClaims = await verifyIdToken({
      verifier,
      issuer,
      idToken: tokens.idToken,
      nonce: login.nonce,
    });
    const identity =
      (await accessTokenIdentity(verifier, { accessToken: tokens.accessToken, audience: resourceOf(ctx) })) ??
      idTokenIdentity(idClaims, issuer);
    const session = ctx.state.auth.sessions.issueIdentity(identity.identity, identity.expiresAt);
    ctx.res.writeHead(302, {
      Location: `/${login.returnTo}`,
      'Set-Cookie': [
        clearedLoginStateCookie({ secure }),
        sessionCookie(session.token, { maxAgeSeconds: session.maxAgeSeconds, secure }),
      ],
      'Cache-Control': 'no-store',
    });
    ctx.res.end();
  } catch (error) {
    ctx.state.log({ level: 'warn', msg: 'console sign-in failed', error: describeError(error) });
    sendLoginProblem(ctx.res, problemOf(error, 'The sign-in did not succeed'));
  }
}

/** The access token's identity when it is a JWT this server accepts as a bearer token; else undefined. */
async function accessTokenIdentity(
  verifier: OidcVerifier,
  token: { accessToken: string | undefined; audience: string },
): Promise<{ identity: SessionIdentity; expiresAt: number } | undefined> {
  const { accessToken, audience } = token;
  if (accessToken === undefined || !OidcVerifier.looksLikeJwt(accessToken)) return undefined;
  const verified = await verifier.verify(accessToken, { audience }).catch(() => undefined);
  if (verified === undefined) return undefined;
  const { caller, issuer, subject, expiresAt } = verified;
  return { identity: sessionIdentity({ caller, issuer, subject }), expiresAt };
}

/** The identity the ID token's claims name, mapped as the issuer's bearer tokens are (tenantClaim, userClaim…). */
function idTokenIdentity(claims: JWTPayload, issuer: ConsoleIssuer): { identity: SessionIdentity; expiresAt: number } {
  const caller = callerFromClaims(claims, issuer);
  return {
    identity: sessionIdentity({ caller, issuer: issuer.issuer, subject: claims.sub ?? '' }),
    expiresAt: (claims.exp ?? 0) * 1000,
  };
}

function sessionIdentity(options: { caller: Caller; issuer: string; subject: string }): SessionIdentity {
  const { caller } = options;
  if (caller.tenantId === undefined) throw new ToolgateError('unauthorized', 'the token names no tenant');
  return {
    tenantId: caller.tenantId,
    ...(caller.userId === undefined ? {} : { userId: caller.userId }),
    ...(caller.roles === undefined ? {} : { roles: caller.roles }),
    issuer: options.issuer,
    subject: options.subject,
  };
}

/** The sign-in this callback answers: the issuer's error, a missing or forged cookie and a foreign state end here. */
function checkedLogin(ctx: RequestContext): LoginState {
  const params = ctx.url.searchParams;
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new ToolgateError(
      'unauthorized',
      `the issuer refused the sign-in (${error}${description === null ? '' : `: ${description}`}): ` +
        (error === 'access_denied'
          ? 'access was denied at the issuer; sign in again and allow access'
          : 'check the console client at the issuer (auth.oidc[].console) and sign in again'),
    );
  }
  const login = openLoginState(ctx.state.auth.sessions, readLoginStateCookie(ctx.req.headers.cookie));
  if (login === undefined) {
    throw new ToolgateError(
      'unauthorized',
      'this sign-in is unknown or expired (its cookie is missing, forged, or older than 10 minutes; the browser ' +
        'may block cookies): start the sign-in again from the console',
    );
  }
  if (params.get('state') !== login.state) {
    throw new ToolgateError(
      'unauthorized',
      'the answer does not belong to the sign-in this browser started (state mismatch): start the sign-in again',
    );
  }
  const iss = params.get('iss');
  if (iss !== null && iss !== login.issuer) {
    throw new ToolgateError('unauthorized', `the answer came from ${iss}, not ${login.issuer}: start again`);
  }
  if (params.get('code') === null) throw new ToolgateError('unauthorized', 'the issuer sent no code: start again');
  return login;
}

function loginQuery(url: URL): { issuer: string | undefined; returnTo: string } {
  const allowed = new Set(['issuer', 'return']);
  for (const name of url.searchParams.keys()) {
    if (!allowed.has(name))
      throw new ToolgateError('usage', `unknown query parameter "${name}" (allowed: issuer, return)`);
  }
  const requested = url.searchParams.get('return');
  return {
    issuer: url.searchParams.get('issuer') ?? undefined,
    returnTo: requested !== null && RETURN_PATTERN.test(requested) ? requested : DEFAULT_RETURN,
  };
}

/** auth.resource, else this request's own origin: where the issuer sends the browser back to. */
function baseUrl(ctx: RequestContext): string {
  const configured = ctx.state.auth.resource;
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  const host = ctx.req.headers.host;
  if (host === undefined || host === '') {
    throw new ToolgateError('usage', 'the request has no Host header: set auth.resource to the URL of this server');
  }
  return `${isSecure(ctx) ? 'https' : 'http'}://${host}`;
}

/** The resource URL access tokens are asked for and checked against (RFC 8707). */
function resourceOf(ctx: RequestContext): string {
  return ctx.state.auth.resource ?? baseUrl(ctx);
}

function isSecure(ctx: { req: IncomingMessage }): boolean {
  return isSecureRequest(ctx.req);
}

function problemOf(error: unknown, title: string): LoginProblem {
  if (error instanceof HttpError) return { status: error.status, title, message: error.message };
  if (error instanceof ToolgateError) {
    return { status: error.code === 'usage' ? 400 : 401, title, message: error.message };
  }
  return { status: 500, title, message: 'an unexpected error; the server log has the details' };
}
