import type { ToolSpec } from '../core/tools.ts';

/** The names a tool pattern is matched against. */
export interface ToolRef {
  /** Configured server name, e.g. "power-exchange". */
  server: string;
  /** The tool's own name on that server. */
  tool: string;
  /** The name the model sees (may carry a server prefix). */
  exposedName: string;
}

export function toolRefOf(tool: ToolSpec, exposedName: string = tool.name): ToolRef {
  return { server: tool.origin.server, tool: tool.origin.tool, exposedName };
}

/**
 * Whether a policy pattern names this tool (syntax: see Policy). Matching is
 * case-sensitive, like MCP tool names.
 */
export function matchToolPattern(pattern: string, target: ToolRef): boolean {
  const regex = globToRegExp(pattern);
  if (pattern.includes('/')) return regex.test(`${target.server}/${target.tool}`);
  return regex.test(target.tool) || regex.test(target.exposedName);
}

const cache = new Map<string, RegExp>();
const MAX_CACHED_PATTERNS = 1024;

function globToRegExp(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (regex !== undefined) return regex;
  if (pattern === '*' || pattern === '**') regex = /^[\s\S]*$/;
  else {
    const body = pattern
      .split(/(\*\*|\*)/)
      .map((part) =>
        part === '**' ? '[\\s\\S]*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    regex = new RegExp(`^${body}$`);
  }
  if (cache.size >= MAX_CACHED_PATTERNS) cache.clear();
  cache.set(pattern, regex);
  return regex;
}

/**
 * Orders patterns from least to most specific: the catch-all `*`/`**` first,
 * then globs with more wildcards, then globs with fewer, then a bare exact
 * name, then an exact `server/tool`.
 * Ties break on the longer literal text, then alphabetically, so the order
 * never depends on how the policy file was written.
 */
export function compareSpecificity(a: string, b: string): number {
  const sa = specificity(a);
  const sb = specificity(b);
  for (let i = 0; i < sa.length; i += 1) {
    const diff = (sa[i] ?? 0) - (sb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function specificity(pattern: string): number[] {
  const wildcards = [...pattern].filter((c) => c === '*').length;
  const qualified = pattern.includes('/') ? 1 : 0;
  const catchAll = pattern === '*' || pattern === '**';
  const tier = catchAll ? 0 : wildcards > 0 ? 1 : qualified === 1 ? 3 : 2;
  return [tier, -wildcards, qualified, pattern.length - wildcards];
}
