import type { PendingApproval } from '../core/index.ts';

/** Why a person is asked to decide on a call, in words (`run` prints it as it happens, `runs show` afterwards). */
export function approvalWhy(pending: Pick<PendingApproval, 'reason' | 'detail' | 'provenance'>): string {
  switch (pending.reason) {
    case 'policy':
      return 'the policy asks a person';
    case 'untrusted_output':
      return `it follows untrusted output (${[...new Set((pending.provenance ?? []).map((p) => p.name))].join(', ')})`;
    case 'outcome_unknown':
      return `it was sent and its outcome is unknown${pending.detail === undefined ? '' : ` (${pending.detail})`}`;
  }
}
