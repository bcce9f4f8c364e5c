import { TOOL_NAME_PATTERN, type ToolSource, type ToolSpec } from '../core/index.ts';

const MAX_NAME_LENGTH = 64;

export interface NamedTool {
  spec: ToolSpec;
  source: ToolSource;
}

/**
 * Model-visible names for the tools of several sources. A name two sources
 * share is prefixed with each server's name (`server_tool`) so neither
 * shadows the other. Sources that are down count with their last known tools,
 * so a server going away and coming back does not rename anyone's tools.
 */
export function nameTools(lists: readonly { source: ToolSource; tools: readonly ToolSpec[] }[]): Map<string, NamedTool> {
  const counts = new Map<string, number>();
  for (const { tools } of lists) {
    for (const tool of tools) {
      const key = sanitizeToolName(tool.name);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const named = new Map<string, NamedTool>();
  for (const { source, tools } of lists) {
    for (const tool of tools) {
      const base = sanitizeToolName(tool.name);
      let name = (counts.get(base) ?? 0) > 1 ? sanitizeToolName(`${tool.origin.server}_${tool.name}`) : base;
      // Still taken (same server listed twice, or a prefix collision): number it.
      for (let n = 2; named.has(name); n++) name = withSuffix(base, `_${n}`);
      named.set(name, { source, spec: { ...tool, name } });
    }
  }
  return named;
}

/** Makes any name acceptable to every model API: `[a-zA-Z0-9_-]{1,64}`. */
export function sanitizeToolName(raw: string): string {
  if (TOOL_NAME_PATTERN.test(raw)) return raw;
  const cleaned = raw.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  const name = cleaned === '' ? 'tool' : cleaned;
  return name.length <= MAX_NAME_LENGTH ? name : name.slice(0, MAX_NAME_LENGTH);
}

function withSuffix(base: string, suffix: string): string {
  return base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}
