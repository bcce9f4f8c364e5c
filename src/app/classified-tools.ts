import type { ToolEffect, ToolSpec } from '../core/index.ts';
import { isToolAllowed, resolveToolPolicy, type Policy } from '../gate/index.ts';

/** A tool as a tenant sees it, with its classification. */
export type ClassifiedTool = ToolSpec & {
  effect: ToolEffect;
  effectSource: 'config' | 'annotation' | 'default';
  approval: 'required' | 'auto' | 'never';
  /** Argument names the gate fills in (the resolved rule's `inject` keys); the model never sees them. */
  injected: string[];
  /** Its output is treated as untrusted (config `untrusted`, or an explicit openWorldHint). */
  untrusted: boolean;
  /** false: its server is down (the last known listing); runs do not get it until the server is back. */
  available: boolean;
};

/** The tools a tenant's caller (with its roles) may use (denied ones left out), each with its classification. */
export function classifyTools(options: {
  known: readonly { spec: ToolSpec; available: boolean }[];
  policy: Policy;
  tenantId: string | undefined;
  roles?: readonly string[] | undefined;
}): ClassifiedTool[] {
  const { policy, tenantId, roles } = options;
  return options.known
    .filter(({ spec }) => isToolAllowed(policy, { tenantId, roles }, spec).allowed)
    .map(({ spec, available }) => {
      const resolved = resolveToolPolicy(policy, spec, spec.name);
      return {
        ...spec,
        effect: resolved.effect,
        effectSource: resolved.effectSource,
        approval: resolved.approval,
        injected: Object.keys(resolved.inject),
        untrusted: resolved.untrusted,
        available,
      };
    });
}
