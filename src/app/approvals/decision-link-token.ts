import { createHash } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { canonicalJson, isRecord, type JsonObject } from '../../core/index.ts';

/**
 * A decision link's token: a compact JWS (HS256, the link secret). The fixed `aud` and `typ` keep any other token
 * signed with the same secret (e.g. when `approvals.linkSecret` falls back to `server.sessionSecret`) from being
 * taken for a link.
 */
export const DECISION_LINK_AUDIENCE = 'toolgate:decision-link';
export const DECISION_LINK_TYPE = 'toolgate-decision-link+jwt';

/** What a verified link token says. */
export interface DecisionLinkClaims {
  runId: string;
  toolCallId: string;
  decision: 'approve' | 'reject';
  /** sha256 (base64url) of the canonical JSON of the arguments the notification showed. */
  argumentsHash: string;
  /** The notify target the link was sent to. */
  target: string;
  /** The link's id (`jti`): recorded as the decision's `source.linkId`, so a second use is seen in the log. */
  linkId: string;
  /** When the link stops working (ISO 8601). */
  expiresAt: string;
  /** When the link was made (epoch ms): a decision on the call after this means the call was asked again since. */
  issuedAtMs: number;
}

/** A token checked: its claims, expired (signature good, too late: the claims say what it was for) or not a link. */
export type LinkTokenCheck =
  | { ok: true; claims: DecisionLinkClaims }
  | { ok: false; reason: 'expired'; claims: DecisionLinkClaims }
  | { ok: false; reason: 'invalid' };

/** The hash a link binds to: equal arguments (in any key order) give equal hashes. */
export function argumentsHash(args: JsonObject): string {
  return createHash('sha256').update(canonicalJson(args), 'utf8').digest('base64url');
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** Signs one link token. `expiresAtMs`: epoch ms (kept to the second, as JWT `exp` is). */
export async function signLinkToken(
  claims: Omit<DecisionLinkClaims, 'expiresAt' | 'issuedAtMs'>,
  options: { secret: string; nowMs: number; expiresAtMs: number },
): Promise<string> {
  return (
    new SignJWT({
      run: claims.runId,
      call: claims.toolCallId,
      decision: claims.decision,
      args: claims.argumentsHash,
      target: claims.target,
    })
      .setProtectedHeader({ alg: 'HS256', typ: DECISION_LINK_TYPE })
      .setAudience(DECISION_LINK_AUDIENCE)
      .setJti(claims.linkId)
      // A NumericDate may have a fraction: the milliseconds order the link against the run's events.
      .setIssuedAt(options.nowMs / 1000)
      .setExpirationTime(Math.floor(options.expiresAtMs / 1000))
      .sign(key(options.secret))
  );
}

function readClaims(payload: unknown): DecisionLinkClaims | undefined {
  if (!isRecord(payload)) return undefined;
  const { run, call, decision, args, target, jti, exp, iat } = payload;
  if (typeof run !== 'string' || typeof call !== 'string' || typeof args !== 'string') return undefined;
  if (typeof target !== 'string' || typeof jti !== 'string') return undefined;
  if (typeof exp !== 'number' || typeof iat !== 'number') return undefined;
  if (decision !== 'approve' && decision !== 'reject') return undefined;
  return {
    runId: run,
    toolCallId: call,
    decision,
    argumentsHash: args,
    target,
    linkId: jti,
    expiresAt: new Date(exp * 1000).toISOString(),
    issuedAtMs: Math.round(iat * 1000),
  };
}

/** Verifies a link token: signature, `typ`, `aud`, `exp` (against `nowMs`) and the claims' shape. */
export async function checkLinkToken(
  token: string,
  options: { secret: string; nowMs: number },
): Promise<LinkTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, key(options.secret), {
      algorithms: ['HS256'],
      audience: DECISION_LINK_AUDIENCE,
      typ: DECISION_LINK_TYPE,
      requiredClaims: ['jti', 'exp', 'iat'],
      currentDate: new Date(options.nowMs),
    });
    const claims = readClaims(payload);
    return claims === undefined ? { ok: false, reason: 'invalid' } : { ok: true, claims };
  } catch (error) {
    // jose checks the signature, `typ` and `aud` before `exp`: an expired token is otherwise a good link.
    if (error instanceof errors.JWTExpired) {
      const claims = readClaims(error.payload);
      if (claims !== undefined) return { ok: false, reason: 'expired', claims };
    }
    return { ok: false, reason: 'invalid' };
  }
}
