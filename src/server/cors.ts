import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgateError } from '../core/errors.ts';

export const CORS_ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';
export const CORS_ALLOW_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, Traceparent, X-User-Id, X-CSRF-Token, ' +
  'X-Toolgate-Thread-Id';
export const CORS_EXPOSE_HEADERS = 'X-Request-Id, Location, Retry-After, X-Toolgate-Run-Id';
/**
 * Headers the official OpenAI SDKs add to every request (`x-stainless-*` platform and retry details, the
 * organization and project): a browser app using them against the chat completions route must get past the preflight.
 * Allowed as the browser asks for them; they carry nothing toolgate reads.
 */
const SDK_HEADER = /^(?:x-stainless-[a-z0-9-]{1,40}|openai-(?:organization|project|beta))$/;
/** At most this many requested headers are looked at (a preflight names a handful). */
const MAX_REQUESTED_HEADERS = 40;

/** How long a browser may reuse a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Checks `server.cors.origins` as the HTTP layer receives it: each must be an
 * origin exactly as browsers send it (no wildcard: a cross-origin app uses a
 * bearer key, and any site could use a key a user gave it).
 */
export function corsOriginSet(origins: readonly string[] | undefined): ReadonlySet<string> {
  for (const origin of origins ?? []) {
    let canonical: string | undefined;
    try {
      canonical = new URL(origin).origin;
    } catch {
      canonical = undefined;
    }
    if (canonical !== origin || !/^https?:/.test(origin)) {
      throw new ToolgateError(
        'usage',
        `CORS origin "${origin}" is not an origin such as https://app.example.com ` +
          `(scheme, host and optional port; "*" is not allowed)`,
      );
    }
  }
  return new Set(origins);
}

/**
 * CORS for a request from a listed origin: the headers that let the page read
 * the answer (never Allow-Credentials: such apps send a bearer key, and the
 * session cookie is SameSite=Strict). Answers a preflight (OPTIONS with an
 * Origin) and returns true then; a preflight from an origin that is neither
 * listed nor this server's own is refused with 403.
 */
export function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  options: { origins: ReadonlySet<string>; sameOrigin: boolean },
): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  const listed = options.origins.has(origin);
  if (listed) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
  }
  if (req.method !== 'OPTIONS') return false;
  if (!listed && !options.sameOrigin) {
    throw new ToolgateError(
      'forbidden',
      `origin ${JSON.stringify(origin)} is not in server.cors.origins; ` +
        `add it there to let a browser app on that origin call this API`,
    );
  }
  res.writeHead(204, {
    'Access-Control-Allow-Methods': CORS_ALLOW_METHODS,
    'Access-Control-Allow-Headers': allowedHeaders(req.headers['access-control-request-headers']),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    'Content-Length': '0',
  });
  res.end();
  return true;
}

/** The fixed list, plus those of the requested headers that the OpenAI SDKs send (SDK_HEADER). */
function allowedHeaders(requested: string | undefined): string {
  if (requested === undefined) return CORS_ALLOW_HEADERS;
  const sdk = requested
    .split(',', MAX_REQUESTED_HEADERS)
    .map((name) => name.trim().toLowerCase())
    .filter((name) => SDK_HEADER.test(name));
  return sdk.length === 0 ? CORS_ALLOW_HEADERS : `${CORS_ALLOW_HEADERS}, ${[...new Set(sdk)].join(', ')}`;
}
