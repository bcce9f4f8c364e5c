import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../../core/errors.ts';
import { GATEWAY_ENDPOINT_PATH } from '../../core/runs.ts';
import { HttpError } from '../respond.ts';
import { isSecureRequest } from '../session.ts';

/** RFC 9728: where a protected resource publishes its metadata (the resource's path goes after it). */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
/** The gateway's MCP endpoint: a resource of its own, `<base>/mcp`. */
export const MCP_PATH = '/mcp';

/** The gateway's `/mcp`, or a virtual server's `/mcp/<name>` (gateway.endpoints): each a resource of its own. */
export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || GATEWAY_ENDPOINT_PATH.test(path);
}

/** A refused bearer token carries this in its details: the 401's challenge then says `error="invalid_token"`. */
export const INVALID_TOKEN = 'invalid_token';
/** A good token without a required scope carries this (and `scope`): a 403 whose challenge names the scope. */
export const INSUFFICIENT_SCOPE = 'insufficient_scope';

/** A host name or address with an optional port: nothing that could break out of a quoted header value. */
const HOST_PATTERN = /^[A-Za-z0-9.[\]:-]{1,255}$/;

/**
 * The URL this server is known by: auth.resource, else the request's own origin (Host, and https when the connection
 * or X-Forwarded-Proto says so). Behind a proxy that rewrites Host, auth.resource must be set.
 */
export function resourceBase(req: IncomingMessage, configured: string | undefined): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  const host = req.headers.host;
  if (host === undefined || !HOST_PATTERN.test(host)) {
    throw new ToolgateError(
      'usage',
      'the request has no usable Host header: set auth.resource to the URL of this server',
    );
  }
  return `${isSecureRequest(req) ? 'https' : 'http'}://${host}`;
}

/** The resource a path belongs to: the gateway's `<base>/mcp` (or `<base>/mcp/<name>`), or the runs API's `<base>`. */
export function resourceFor(base: string, path: string): string {
  return isMcpPath(path) ? `${base}${path}` : base;
}

/**
 * A 401 with the challenge of RFC 6750 / RFC 9728 (`WWW-Authenticate: Bearer resource_metadata="…"`), so an MCP
 * client finds the authorization server; with `error="invalid_token"` when a presented token was refused; a 403 with
 * `error="insufficient_scope", scope="…"` for a token without a required scope. Any other error is returned as it is.
 */
export function withBearerChallenge(
  error: unknown,
  request: { req: IncomingMessage; path: string; resource: string | undefined },
): unknown {
  if (!(error instanceof ToolgateError) || error instanceof HttpError) return error;
  const scope = error.details?.['scope'];
  const insufficient =
    error.code === 'forbidden' && error.details?.['bearerError'] === INSUFFICIENT_SCOPE && typeof scope === 'string';
  if (error.code !== 'unauthorized' && !insufficient) return error;
  let base: string;
  try {
    base = resourceBase(request.req, request.resource);
  } catch {
    return error;
  }
  const suffix = isMcpPath(request.path) ? request.path : '';
  const params = [`resource_metadata="${base}${METADATA_PATH}${suffix}"`];
  if (insufficient) {
    params.push(`error="${INSUFFICIENT_SCOPE}"`, `scope="${quotable(scope)}"`);
    params.push(`error_description="${quotable(error.message)}"`);
  } else if (error.details?.['bearerError'] === INVALID_TOKEN) {
    params.push(`error="${INVALID_TOKEN}"`, `error_description="${quotable(error.message)}"`);
  }
  return new HttpError({
    status: insufficient ? 403 : 401,
    code: insufficient ? 'forbidden' : 'unauthorized',
    message: error.message,
    headers: { 'WWW-Authenticate': `Bearer ${params.join(', ')}` },
  });
}

/** RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E in error_description: no quote, no backslash. */
function quotable(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'").slice(0, 500);
}
