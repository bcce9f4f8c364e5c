import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../core/errors.ts';
import { isLoopbackHost } from './loopback-host.ts';

/**
 * Methods a foreign page may send without being refused here: they change nothing (CORS keeps their answers from it).
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refusals that protect a browser's user, before anything else runs:
 *
 * - without API keys, a request whose Host is not a loopback name: a page of
 *   another site that re-points its own name at 127.0.0.1 (DNS rebinding)
 *   reaches this server with that name in Host;
 * - a request that may change something (not GET/HEAD/OPTIONS) whose Origin is
 *   neither this server's own (per Host) nor listed in server.cors.origins: a
 *   cross-site form or fetch, which matters most in the no-keys mode.
 *
 * Returns whether the request comes from this server's own origin.
 */
export function guardOrigin(
  req: IncomingMessage,
  /** `anyOrigin`: a route that reads no cookie or key (a decision link): any Origin may send to it. */
  options: { keysRequired: boolean; origins: ReadonlySet<string>; anyOrigin?: boolean },
): { sameOrigin: boolean } {
  const host = req.headers.host;
  if (!options.keysRequired && host !== undefined && !isLoopbackHost(hostnameOf(host))) {
    throw new ToolgateError(
      'forbidden',
      `requests addressed to ${JSON.stringify(host)} are refused: this server has no API keys, so it ` +
        (`answers only requests to a loopback name (guarding against DNS rebinding); use ` +
          `http://127.0.0.1 or http://localhost, or configure API keys (tenants.<id>.apiKeys)`),
    );
  }
  const origin = req.headers.origin;
  if (origin === undefined) return { sameOrigin: false };
  const sameOrigin = isSameOrigin(origin, host);
  if (options.anyOrigin === true) return { sameOrigin };
  if (!sameOrigin && !options.origins.has(origin) && !SAFE_METHODS.has(req.method ?? 'GET')) {
    throw new ToolgateError(
      'forbidden',
      `a ${req.method ?? ''} request from origin ${JSON.stringify(origin)} is ` +
        `refused: it is neither this server's origin nor listed in server.cors.origins`,
    );
  }
  return { sameOrigin };
}

/** `Origin` names the server the request was sent to: http(s)://<Host>. */
export function isSameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === '') return false;
  for (const scheme of ['http', 'https']) {
    try {
      if (new URL(`${scheme}://${host}`).origin === origin.toLowerCase()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** `example.com:8787` → `example.com`, `[::1]:8787` → `[::1]`. */
function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return host;
  }
}
