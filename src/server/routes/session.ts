import { z } from 'zod';
import { ToolgateError } from '../../core/errors.ts';
import { keyFingerprint } from '../auth.ts';
import { readJsonBody } from '../body.ts';
import { readQuery } from '../query.ts';
import { sendJson, sendJsonResponse } from '../respond.ts';
import { formatIssues } from '../schemas.ts';
import type { RequestContext } from '../server-context.ts';
import { clearedSessionCookie, isSecureRequest, sessionCookie } from '../session.ts';
import { signInChoices } from './oidc-login.ts';

/** The csrfToken handed out when the server has no keys (nothing checks it then; clients may send it anyway). */
const ANONYMOUS_SESSION_ID = 'anonymous';

const signInBodySchema = z.strictObject({
  apiKey: z
    .string({ error: 'must be a string: one of the keys in tenants.<id>.apiKeys' })
    .min(1, 'must not be empty: one of the keys in tenants.<id>.apiKeys'),
});

/**
 * POST /v1/session: trades an API key for a session cookie (HttpOnly,
 * SameSite=Strict), so a page on this origin authenticates EventSource and
 * fetch without holding the key. The answer's csrfToken goes into
 * X-CSRF-Token on every request that may change something.
 */
export async function signIn(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const { auth } = ctx.state;
  const body = await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes });
  if (!auth.keysRequired) {
    sendJson(ctx.res, 200, { anonymous: true, csrfToken: auth.sessions.csrfToken(ANONYMOUS_SESSION_ID) });
    return;
  }
  const apiKey = parseSignInBody(body);
  const entry = await auth.signInEntry(ctx.req, apiKey);
  const session = auth.sessions.issue(keyFingerprint(entry.key));
  const cookie = sessionCookie(session.token, {
    maxAgeSeconds: session.maxAgeSeconds,
    secure: isSecureRequest(ctx.req),
  });
  sendJsonResponse(ctx.res, {
    status: 200,
    body: {
      tenantId: entry.tenantId,
      ...(entry.userId === undefined ? {} : { userId: entry.userId }),
      ...(entry.roles === undefined || entry.roles.length === 0 ? {} : { roles: entry.roles }),
      csrfToken: session.csrfToken,
      expiresAt: new Date(session.expiresAt).toISOString(),
    },
    headers: { 'Set-Cookie': cookie },
  });
}

/**
 * GET /v1/session: whether the request is signed in (cookie or bearer key), and as whom. Never 401; 429 when its
 * address must wait after failed keys.
 */
export async function getSession(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const { auth } = ctx.state;
  if (!auth.keysRequired) {
    sendJson(ctx.res, 200, {
      authenticated: true,
      keysRequired: false,
      csrfToken: auth.sessions.csrfToken(ANONYMOUS_SESSION_ID),
    });
    return;
  }
  const identity = await auth.identify(ctx.req);
  // The issuers the console may offer as "Sign in with …" buttons (auth.oidc[].console).
  const choices = signInChoices(ctx);
  const signIn = choices.length === 0 ? {} : { signIn: choices };
  if (identity === undefined) {
    sendJson(ctx.res, 200, { authenticated: false, keysRequired: true, ...signIn });
    return;
  }
  const session =
    identity.via === 'session'
      ? {
          csrfToken: auth.sessions.csrfToken(identity.session.id),
          expiresAt: new Date(identity.session.expiresAt).toISOString(),
        }
      : {};
  const via =
    identity.via === 'session' && 'identity' in identity.session ? { issuer: identity.session.identity.issuer } : {};
  sendJson(ctx.res, 200, {
    authenticated: true,
    keysRequired: true,
    ...identity.caller,
    ...session,
    ...via,
    ...signIn,
  });
}

/**
 * DELETE /v1/session: 204, the cookie removed. Tokens are stateless: one
 * copied elsewhere stays valid until it expires, unless its key is removed or
 * the secret changes.
 */
export async function signOut(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  ctx.res.writeHead(204, {
    'Set-Cookie': clearedSessionCookie({ secure: isSecureRequest(ctx.req) }),
    'Cache-Control': 'no-store',
  });
  ctx.res.end();
}

function parseSignInBody(body: unknown): string {
  const example = 'send {"apiKey": "<one of the keys in tenants.<id>.apiKeys>"} with "Content-Type: application/json"';
  if (body === undefined) throw new ToolgateError('usage', `request body is required: ${example}`);
  const result = signInBodySchema.safeParse(body);
  if (!result.success)
    throw new ToolgateError('usage', `invalid request body: ${formatIssues(result.error.issues, body)}; ${example}`);
  return result.data.apiKey;
}
