import type { ApprovalLinks, LinkDecision, LinkRefusal, LinkTarget } from '../../core/ports/approval-links.ts';
import {
  ToolgateError,
  type PendingApproval,
  type Run,
  type RunInput,
  type RunService,
  type RunStore,
} from '../../core/index.ts';
import { argumentsHash, checkLinkToken, type DecisionLinkClaims } from './decision-link-token.ts';
import { decisionsIn, describeDecision } from './link-log.ts';
import { shownCall } from './waiting-call.ts';

const CONSOLE_HINT = 'open the run in the console to decide';

/** A link that checked out: what it decides, on which run and call. */
interface Checked {
  claims: DecisionLinkClaims;
  run: Run;
  pending: PendingApproval;
}

/**
 * Decision links over the runs service: `runs` decides (the runs API's own path, which drives the run on), `store`
 * is read for the run's log (a link's earlier use, an earlier decision). `secret`: `approvals.linkSecret`.
 */
export function createApprovalLinks(options: {
  secret: string;
  runs: Pick<RunService, 'getRun' | 'submitInput'>;
  store: Pick<RunStore, 'readEvents'>;
  now?: () => number;
}): ApprovalLinks {
  const now = options.now ?? Date.now;
  // The link is the capability: it is not a tenant's caller, and sees the run it names whatever its tenant.
  const anyTenant = {};

  async function check(token: string): Promise<Checked | LinkRefusal> {
    const verified = await checkLinkToken(token, { secret: options.secret, nowMs: now() });
    if (!verified.ok && verified.reason === 'invalid') {
      return refuse(
        'not_found',
        `not a valid decision link (altered, cut short or signed with another secret); ${CONSOLE_HINT}`,
      );
    }
    const { claims } = verified;
    const runId = claims.runId;
    if (!verified.ok) return refuse('link_expired', `this link expired at ${claims.expiresAt}; ${CONSOLE_HINT}`, runId);
    const run = await options.runs.getRun(anyTenant, runId);
    if (run === undefined) return refuse('not_found', `run ${runId} of this link does not exist (any more)`);
    const events = await options.store.readEvents(runId);
    const used = decisionsIn(events).find((d) => d.input.source?.linkId === claims.linkId);
    if (used !== undefined) return refuse('conflict', `this link was already used at ${used.time}`, runId);
    const onCall = decisionsIn(events, claims.toolCallId);
    const pending = run.status === 'waiting_approval' ? run.pendingApproval : undefined;
    if (pending?.toolCallId !== claims.toolCallId) {
      const last = onCall.at(-1);
      if (last !== undefined) return refuse('conflict', `already decided: ${describeDecision(last)}`, runId);
      return refuse(
        'conflict',
        `run ${runId} is not waiting on call ${claims.toolCallId} (status ${run.status}); open the run in the console`,
        runId,
      );
    }
    // The same call may wait again (a write whose outcome is unknown): a decision since the link was made means so.
    const askedAgain = onCall.some((d) => Date.parse(d.time) > claims.issuedAtMs);
    if (askedAgain || argumentsHash(pending.arguments) !== claims.argumentsHash) {
      return refuse(
        'conflict',
        'the call changed since this link was sent (it was edited or asked again): open the run in the console',
        runId,
      );
    }
    return { claims, run, pending };
  }

  return {
    async inspect(token) {
      const checked = await check(token);
      if ('ok' in checked) return checked;
      return { ok: true, ...target(checked) };
    },
    async use(token, use) {
      const checked = await check(token);
      if ('ok' in checked) return checked;
      const { claims } = checked;
      const input: RunInput = {
        type: 'approval',
        toolCallId: claims.toolCallId,
        decision: claims.decision,
        ...(use.reason === undefined ? {} : { reason: use.reason }),
        source: {
          via: use.via,
          target: claims.target,
          linkId: claims.linkId,
          ...(use.actor === undefined ? {} : { actor: use.actor }),
        },
      };
      try {
        // Written only against the run as submitInput checks it: of two uses at once, one decides.
        await options.runs.submitInput(anyTenant, claims.runId, input);
      } catch (error) {
        if (!(error instanceof ToolgateError) || error.code !== 'conflict') throw error;
        // Someone decided meanwhile (maybe this link, from elsewhere): say who, as a first look would have.
        const again = await check(token);
        return 'ok' in again ? again : refuse('conflict', error.message, claims.runId);
      }
      const decided: LinkDecision = {
        runId: claims.runId,
        toolCallId: claims.toolCallId,
        decision: claims.decision,
        decided: true,
      };
      return { ok: true, ...decided };
    },
  };
}

function refuse(code: LinkRefusal['code'], message: string, runId?: string): LinkRefusal {
  return { ok: false, code, message, ...(runId === undefined ? {} : { runId }) };
}

function target({ claims, run, pending }: Checked): LinkTarget {
  return {
    runId: run.id,
    ...(run.tenantId === undefined ? {} : { tenantId: run.tenantId }),
    ...shownCall(pending),
    decision: claims.decision,
    target: claims.target,
    expiresAt: claims.expiresAt,
  };
}
