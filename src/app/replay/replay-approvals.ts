import { canonicalJson, type PendingApproval, type RunEvent, type RunInput } from '../../core/index.ts';

/** The reason a replay gives when it rejects a call the original did not decide. */
export const NOT_DECIDED_REASON = 'replay: not decided in the original';

/** Who decides in a replay (recorded with its decisions). */
export const REPLAY_USER = 'replay';

interface RecordedApproval {
  key: string;
  plan: boolean;
  decision: Extract<RunInput, { type: 'approval' }>;
}

/**
 * Decides a replay's approvals as the original did: a call waiting for a person gets the original's decision for the
 * same tool with the same arguments (each decision once, in order; a plan the original's next plan decision); any
 * other is rejected with NOT_DECIDED_REASON, so the replay goes on.
 */
export class ReplayApprovals {
  readonly #recorded: RecordedApproval[];
  readonly #used = new Set<RecordedApproval>();

  constructor(events: readonly RunEvent[]) {
    this.#recorded = recordedApprovals(events);
  }

  /** The input that decides this pending approval. */
  decide(pending: PendingApproval): RunInput {
    const plan = pending.kind === 'plan';
    const key = approvalKey(pending.name, pending.arguments);
    const match = this.#recorded.find(
      (r) => !this.#used.has(r) && r.plan === plan && (plan || r.key === key) && pending.reason !== 'outcome_unknown',
    );
    if (match === undefined)
      return {
        type: 'approval',
        toolCallId: pending.toolCallId,
        decision: 'reject',
        reason: NOT_DECIDED_REASON,
        userId: REPLAY_USER,
      };
    this.#used.add(match);
    return { ...match.decision, toolCallId: pending.toolCallId, userId: REPLAY_USER };
  }
}

function approvalKey(name: string, args: unknown): string {
  return `${name}\u0000${canonicalJson(args)}`;
}

/** The original's approval_required events with the decision each got (input_received), in order. */
function recordedApprovals(events: readonly RunEvent[]): RecordedApproval[] {
  const asked = new Map<string, { key: string; plan: boolean }>();
  const out: RecordedApproval[] = [];
  for (const event of events) {
    if (event.type === 'approval_required') {
      const plan = event.data.kind === 'plan';
      asked.set(event.data.toolCallId, { key: approvalKey(event.data.name, event.data.arguments), plan });
    } else if (event.type === 'input_received' && event.data.input.type === 'approval') {
      const decision = event.data.input;
      const question = asked.get(decision.toolCallId);
      if (question === undefined) continue;
      asked.delete(decision.toolCallId);
      out.push({ ...question, decision });
    }
  }
  return out;
}
