import type { ErrorCode } from '../errors.ts';
import type { PendingApproval } from '../runs.ts';

/** How a decision link is used: `link`, a person confirmed in a browser; `chat`, a bot POSTed the token. */
export interface LinkUse {
  via: 'link' | 'chat';
  /** Recorded with the decision (what the model is told of a rejection). */
  reason?: string;
  /** Who the bot says decided: recorded as `source.actor`, not verified. */
  actor?: string;
}

/**
 * A waiting call as a person is shown it (in a notification, on a link's page): the tool (or `plan`), its arguments as
 * shown, why it waits, and what happened to a call whose outcome is unknown.
 */
export type ShownCall = Pick<PendingApproval, 'toolCallId' | 'name' | 'arguments' | 'effect' | 'reason' | 'detail'>;

/** What a valid link would do: decide `decision` on the call shown. */
export interface LinkTarget extends ShownCall {
  runId: string;
  tenantId?: string;
  decision: 'approve' | 'reject';
  /** The notify target the link was sent to. */
  target: string;
  /** When the link stops working (ISO 8601). */
  expiresAt: string;
}

/**
 * Why a link does nothing, with the error code the runs API answers with: `not_found` (not a valid link),
 * `link_expired`, `conflict` (already used, already decided, the call changed or no longer waits). `runId` when the
 * token named a run (to offer the console's page of it).
 */
export interface LinkRefusal {
  ok: false;
  code: ErrorCode;
  message: string;
  runId?: string;
}

/** The decision a link made. */
export interface LinkDecision {
  runId: string;
  toolCallId: string;
  decision: 'approve' | 'reject';
  decided: true;
}

/**
 * Decisions from a link (`POST /v1/approvals/{token}`): the token is the capability, so the server asks for no other
 * credential. A link is single-use, expires, and is bound to a run, a call and a hash of the arguments shown.
 */
export interface ApprovalLinks {
  /** What the link would do, decided nothing (GET never decides: mail scanners and chat previews open links). */
  inspect(token: string): Promise<({ ok: true } & LinkTarget) | LinkRefusal>;
  /**
   * Decides: the call's approval input is recorded with `source: {via, target, linkId, actor?}` and the run driven
   * on, written against the run's state as it was checked, so two uses of one link decide once.
   */
  use(token: string, use: LinkUse): Promise<({ ok: true } & LinkDecision) | LinkRefusal>;
}
