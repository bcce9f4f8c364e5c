import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ToolgateError } from '../core/errors.ts';
import type { Caller } from '../core/ports/run-service.ts';
import { checkedHeader } from './checked-header.ts';

/** One API key and the tenant (and optionally the user) it acts for. */
export interface ApiKeyEntry {
  key: string;
  tenantId: string;
  userId?: string;
  /** Lets a trusted backend name the end user per request with `X-User-Id`. */
  allowUserIdHeader?: boolean;
  /** The roles the key's caller holds (Caller.roles). */
  roles?: string[];
}

export type Authenticate = (headers: IncomingHttpHeaders) => Caller;

/** The configured keys, looked up without leaking a key's length or position through timing. */
export interface KeyIndex {
  readonly size: number;
  /** The entry of a presented key. */
  byKey(presented: string): ApiKeyEntry | undefined;
  /** The entry whose keyFingerprint is `fingerprint` (a session names its key this way). */
  byFingerprint(fingerprint: string): ApiKeyEntry | undefined;
}

const USER_ID_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;
/** Bytes of sha256(key) a session token carries to name its key. */
const FINGERPRINT_BYTES = 16;

/**
 * Keys are compared as sha256 digests with timingSafeEqual, and every
 * configured key is compared on every lookup, so neither the length nor the
 * position of a key leaks through timing.
 */
export function createKeyIndex(apiKeys: readonly ApiKeyEntry[]): KeyIndex {
  const entries = apiKeys.map((entry) => {
    const digest = sha256(entry.key);
    return { entry, digest, fingerprint: digest.subarray(0, FINGERPRINT_BYTES) };
  });
  const find = (probe: Buffer, part: 'digest' | 'fingerprint'): ApiKeyEntry | undefined => {
    let match: ApiKeyEntry | undefined;
    for (const candidate of entries) {
      if (timingSafeEqual(candidate[part], probe)) match ??= candidate.entry;
    }
    return match;
  };
  return {
    size: entries.length,
    byKey: (presented) => find(sha256(presented), 'digest'),
    byFingerprint: (fingerprint) => {
      const probe = Buffer.from(fingerprint, 'base64url');
      return probe.length === FINGERPRINT_BYTES ? find(probe, 'fingerprint') : undefined;
    },
  };
}

/** The first 16 bytes of sha256(key), base64url: what a session token stores instead of the key. */
export function keyFingerprint(key: string): string {
  return sha256(key).subarray(0, FINGERPRINT_BYTES).toString('base64url');
}

/**
 * Maps `Authorization: Bearer <key>` to a Caller (see createKeyIndex for the
 * comparison). With no keys configured every request is the anonymous caller.
 */
export function createAuthenticator(apiKeys: readonly ApiKeyEntry[]): Authenticate {
  const keys = createKeyIndex(apiKeys);
  return (headers) => {
    if (keys.size === 0) {
      const userId = readUserId(headers);
      return userId === undefined ? {} : { userId };
    }
    const presented = bearerToken(headers.authorization);
    // An absent key is looked up too (as ""), so a missing header costs the same time as a wrong one.
    const match = keys.byKey(presented ?? '');
    if (match === undefined || presented === undefined) {
      throw new ToolgateError(
        'unauthorized',
        presented === undefined
          ? 'missing API key: send "Authorization: Bearer <key>" with a key configured for your tenant'
          : 'invalid API key: check the key configured for your tenant (tenants.<id>.apiKeys)',
      );
    }
    return callerFor(match, headers);
  };
}

/**
 * The caller a key acts for: its tenant and roles, and its user or (when the key allows it) the one `X-User-Id` names.
 */
export function callerFor(entry: ApiKeyEntry, headers: IncomingHttpHeaders): Caller {
  const userId = readUserId(headers);
  if (userId !== undefined && entry.allowUserIdHeader !== true) {
    throw new ToolgateError(
      'usage',
      'X-User-Id is not allowed for this API key (set allowUserIdHeader on the key to let it name users)',
    );
  }
  const caller: Caller = { tenantId: entry.tenantId };
  const effectiveUser = userId ?? entry.userId;
  if (effectiveUser !== undefined) caller.userId = effectiveUser;
  if (entry.roles !== undefined && entry.roles.length > 0) caller.roles = [...entry.roles];
  return caller;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function readUserId(headers: IncomingHttpHeaders): string | undefined {
  return checkedHeader(headers, {
    name: 'x-user-id',
    pattern: USER_ID_PATTERN,
    problem: 'X-User-Id must be 1 to 255 printable ASCII characters',
  });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
