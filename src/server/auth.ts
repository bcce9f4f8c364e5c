import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ToolgateError } from '../core/errors.ts';
import type { Caller } from '../core/ports/run-service.ts';

/** One API key and the tenant (and optionally the user) it acts for. */
export interface ApiKeyEntry {
  key: string;
  tenantId: string;
  userId?: string;
  /** Lets a trusted backend name the end user per request with `X-User-Id`. */
  allowUserIdHeader?: boolean;
}

export type Authenticate = (headers: IncomingHttpHeaders) => Caller;

const USER_ID_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/**
 * Maps `Authorization: Bearer <key>` to a Caller. Keys are compared as sha256
 * digests with timingSafeEqual, and every configured key is compared on every
 * request, so neither the length nor the position of a key leaks through timing.
 * With no keys configured every request is the anonymous caller.
 */
export function createAuthenticator(apiKeys: readonly ApiKeyEntry[]): Authenticate {
  const entries = apiKeys.map((entry) => ({ entry, digest: sha256(entry.key) }));
  return (headers) => {
    if (entries.length === 0) {
      const userId = readUserId(headers);
      return userId === undefined ? {} : { userId };
    }

    const presented = bearerToken(headers.authorization);
    const digest = sha256(presented ?? '');
    let match: ApiKeyEntry | undefined;
    for (const candidate of entries) {
      if (timingSafeEqual(candidate.digest, digest) && presented !== undefined) match ??= candidate.entry;
    }
    if (match === undefined) {
      throw new ToolgateError(
        'unauthorized',
        presented === undefined
          ? 'missing API key: send "Authorization: Bearer <key>" with a key configured for your tenant'
          : 'invalid API key: check the key configured for your tenant (tenants.<id>.apiKeys)',
      );
    }
    const userId = readUserId(headers);
    if (userId !== undefined && match.allowUserIdHeader !== true) {
      throw new ToolgateError('usage', 'X-User-Id is not allowed for this API key (set allowUserIdHeader on the key to let it name users)');
    }
    const caller: Caller = { tenantId: match.tenantId };
    const effectiveUser = userId ?? match.userId;
    if (effectiveUser !== undefined) caller.userId = effectiveUser;
    return caller;
  };
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function readUserId(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['x-user-id'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  if (!USER_ID_PATTERN.test(value)) {
    throw new ToolgateError('usage', 'X-User-Id must be 1 to 255 printable ASCII characters');
  }
  return value;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
