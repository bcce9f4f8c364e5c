import type { ToolSpec } from '../core/tools.ts';
import type { ToolEffect } from './policy.ts';

export interface ToolClassification {
  effect: ToolEffect;
  source: 'config' | 'annotation' | 'default';
}

/**
 * Read or write? Configuration wins, then the server's `readOnlyHint`; a tool
 * that says nothing is a write, because the MCP spec tells clients to assume
 * an unannotated tool may be destructive.
 */
export function classifyTool(tool: ToolSpec, override?: ToolEffect): ToolClassification {
  if (override !== undefined) return { effect: override, source: 'config' };
  if (tool.annotations?.readOnlyHint === true) return { effect: 'read', source: 'annotation' };
  if (tool.annotations?.readOnlyHint === false) return { effect: 'write', source: 'annotation' };
  return { effect: 'write', source: 'default' };
}
