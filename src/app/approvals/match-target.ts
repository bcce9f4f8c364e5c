import { isJsonObject } from '../../core/index.ts';
import { matchToolPattern, type ToolRef } from '../../gate/match-tool-pattern.ts';
import type { NotifyTarget, WaitingCall } from './waiting-call.ts';

/** The tool a called name stands for (server and own name), for patterns that name a server. */
export type ToolRefOf = (name: string) => ToolRef;

/** A reference by name alone, when the tool is not known (any more): `server/tool` patterns then do not match it. */
export function nameOnlyRef(name: string): ToolRef {
  return { server: '', tool: name, exposedName: name };
}

/**
 * Whether `target` wants to hear of `call`: its tenant is listed (or the target lists none) and a `tools` pattern
 * matches the call — for a plan, any of its write steps' tools; a plan with no write step reaches only targets without
 * `tools`.
 */
export function targetMatches(target: NotifyTarget, call: WaitingCall, refOf: ToolRefOf = nameOnlyRef): boolean {
  if (target.tenants !== undefined && (call.tenantId === undefined || !target.tenants.includes(call.tenantId)))
    return false;
  const patterns = target.tools;
  if (patterns === undefined) return true;
  const names = call.kind === 'plan' ? planWriteTools(call) : [call.name];
  return names.some((name) => patterns.some((pattern) => matchToolPattern(pattern, refOf(name))));
}

/** The tools of a plan's write steps (the approval_required arguments hold `steps`). */
function planWriteTools(call: WaitingCall): string[] {
  const steps = call.arguments['steps'];
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step) =>
    isJsonObject(step) && typeof step['tool'] === 'string' && step['effect'] !== 'read' ? [step['tool']] : [],
  );
}
