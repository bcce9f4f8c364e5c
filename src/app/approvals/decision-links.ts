import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../core/index.ts';
import { argumentsHash, signLinkToken } from './decision-link-token.ts';

/** One waiting call to make links for: the arguments exactly as the notification shows them. */
export interface DecisionLinkRequest {
  runId: string;
  toolCallId: string;
  arguments: JsonObject;
  /** The notify target the links go to (recorded as the decision's `source.target`). */
  target: string;
}

/**
 * The links of one notification: approve and reject decide (after a confirm page), `open` shows the run in the
 * console (`<base>/#/runs/<runId>`).
 */
export interface IssuedLinks {
  approve: string;
  reject: string;
  open: string;
  /** When approve and reject stop working (ISO 8601). */
  expiresAt: string;
  /** The ids (`jti`) of the approve and reject links, in that order (`approval_notified.linkIds`). */
  linkIds: string[];
}

/** Makes single-use, expiring decision links bound to a run, a call and a hash of the arguments shown. */
export interface DecisionLinks {
  issue(request: DecisionLinkRequest): Promise<IssuedLinks>;
}

/**
 * `secret`: `approvals.linkSecret`; `baseUrl`: where the server is reached (no trailing slash needed), read at each
 * issue because the listening address may be known only after start; `ttlMs`: `approvals.linkTtlMs`.
 */
export function createDecisionLinks(options: {
  secret: string;
  baseUrl: () => string;
  ttlMs: number;
  now?: () => number;
}): DecisionLinks {
  const now = options.now ?? Date.now;
  return {
    async issue(request) {
      const nowMs = now();
      const expiresAtMs = nowMs + options.ttlMs;
      const base = options.baseUrl().replace(/\/+$/, '');
      const hash = argumentsHash(request.arguments);
      const sign = async (decision: 'approve' | 'reject', linkId: string): Promise<string> =>
        signLinkToken(
          {
            runId: request.runId,
            toolCallId: request.toolCallId,
            decision,
            argumentsHash: hash,
            target: request.target,
            linkId,
          },
          { secret: options.secret, nowMs, expiresAtMs },
        );
      const ids = [randomUUID(), randomUUID()] as const;
      const [approve, reject] = await Promise.all([sign('approve', ids[0]), sign('reject', ids[1])]);
      return {
        approve: `${base}/v1/approvals/${approve}`,
        reject: `${base}/v1/approvals/${reject}`,
        // The console's page is the server's `/`; its views are named by the hash (web/src/main.ts).
        open: `${base}/#/runs/${encodeURIComponent(request.runId)}`,
        expiresAt: new Date(Math.floor(expiresAtMs / 1000) * 1000).toISOString(),
        linkIds: [...ids],
      };
    },
  };
}
