import type { JWTPayload } from 'jose';
import { ToolgateError } from '../../core/errors.ts';
import type { Caller } from '../../core/ports/run-service.ts';

/** How one issuer's claims become a caller (the `auth.oidc[]` keys of the same names). */
export interface ClaimMapping {
  tenantClaim?: string | undefined;
  tenant?: string | undefined;
  userClaim?: string | undefined;
  rolesClaim?: string | undefined;
}

// The same patterns the config checks for tenant ids, user ids (X-User-Id) and roles: a token is untrusted input.
const TENANT_PATTERN = /^[A-Za-z0-9_.*-]{1,64}$/;
const USER_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;
const ROLE_PATTERN = /^[\w.:/@-]{1,128}$/;

/** The value at a dotted path (`org.id` reads `{ org: { id } }`); a claim named with a dot wins over the path. */
export function claimAt(payload: JWTPayload, path: string): unknown {
  if (Object.hasOwn(payload, path)) return payload[path];
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, part))
      return undefined;
    value = Object.getOwnPropertyDescriptor(value, part)?.value;
  }
  return value;
}

/** The caller a verified token acts for; 401 naming the claim when a value is missing or not acceptable. */
export function callerFromClaims(payload: JWTPayload, mapping: ClaimMapping): Caller {
  const tenantId = mapping.tenant ?? tenantFrom(payload, mapping.tenantClaim ?? 'tenant');
  const userClaim = mapping.userClaim ?? 'sub';
  const user = claimAt(payload, userClaim);
  if (typeof user !== 'string' || !USER_PATTERN.test(user)) {
    throw refused(
      user === undefined
        ? `the token has no "${userClaim}" claim to name the user (auth.oidc[].userClaim)`
        : `the token's "${userClaim}" claim is not a user id (1 to 255 printable ASCII characters)`,
    );
  }
  const roles = rolesFrom(payload, mapping.rolesClaim ?? 'roles');
  return { tenantId, userId: user, ...(roles === undefined ? {} : { roles }) };
}

/** The scopes a token carries: `scope` (space-separated, RFC 9068) or `scp` (a list, as some issuers send). */
export function tokenScopes(payload: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  const { scope } = payload;
  if (typeof scope === 'string') for (const item of scope.split(' ')) if (item !== '') scopes.add(item);
  const scp = payload['scp'];
  if (Array.isArray(scp)) for (const item of scp) if (typeof item === 'string') scopes.add(item);
  return scopes;
}

function tenantFrom(payload: JWTPayload, claim: string): string {
  const value = claimAt(payload, claim);
  if (value === undefined) {
    throw refused(
      `the token has no "${claim}" claim to name the tenant: configure auth.oidc[].tenantClaim ` +
        `(a dotted path such as org.id) or a fixed auth.oidc[].tenant`,
    );
  }
  if (typeof value !== 'string' || !TENANT_PATTERN.test(value) || value === '*') {
    throw refused(`the token's "${claim}" claim is not a tenant id (1 to 64 letters, digits, "_", "-", ".")`);
  }
  return value;
}

function rolesFrom(payload: JWTPayload, claim: string): string[] | undefined {
  const value = claimAt(payload, claim);
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? value.split(' ').filter((role) => role !== '') : value;
  if (!Array.isArray(list)) throw refused(`the token's "${claim}" claim must be a list of roles or a string`);
  const roles: string[] = [];
  for (const role of list) {
    if (typeof role !== 'string' || !ROLE_PATTERN.test(role)) {
      throw refused(
        `the token's "${claim}" claim holds a value that is not a role (1 to 128 letters, digits or "_ . : / @ -")`,
      );
    }
    roles.push(role);
  }
  return roles;
}

function refused(reason: string): ToolgateError {
  return new ToolgateError('unauthorized', `bearer token refused: ${reason}`);
}
