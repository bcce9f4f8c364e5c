import type { JsonObject } from '../core/json.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { ResolvedToolPolicy } from './policy.ts';

/** The policy's verdict on one call whose arguments are fine (decideCall builds the whole Decision around it). */
export type PolicyVerdict =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string }
  | { kind: 'approval_required'; reason: 'policy' | 'untrusted_output' }
  | { kind: 'dry_run' };

export interface DecideInput {
  tool: ToolSpec;
  exposedName: string;
  /** Already validated, normalised and injected. */
  arguments: JsonObject;
  policy: ResolvedToolPolicy;
  allowed: { allowed: boolean; reason?: string };
  dryRun: boolean;
  /** A human approved this very call. */
  approvalGranted?: boolean;
  /** Untrusted tool output entered the run before this call (see ToolRule.untrusted). */
  tainted?: boolean;
}

/**
 * The gate's verdict, in a fixed order: not allowed → deny; a write in a dry
 * run → dry_run (reads still execute, so a dry run shows real data); approval
 * required and not yet granted → approval_required; a write after untrusted
 * output not yet approved → approval_required, whatever its rule says (output
 * from outside may carry instructions the model follows); otherwise allow.
 */
export function decide(input: DecideInput): PolicyVerdict {
  if (!input.allowed.allowed) {
    return { kind: 'deny', reason: input.allowed.reason ?? `the tool ${input.exposedName} is not allowed here` };
  }
  if (input.dryRun && input.policy.effect === 'write') return { kind: 'dry_run' };
  if (input.approvalGranted === true) return { kind: 'allow' };
  if (input.policy.approval === 'required') return { kind: 'approval_required', reason: 'policy' };
  if (input.tainted === true && input.policy.effect === 'write')
    return { kind: 'approval_required', reason: 'untrusted_output' };
  return { kind: 'allow' };
}
