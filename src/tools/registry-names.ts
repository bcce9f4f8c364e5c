import { TOOL_NAME_PATTERN, type ToolSource, type ToolSpec } from '../core/index.ts';

const MAX_NAME_LENGTH = 64;

export interface NamedTool {
  spec: ToolSpec;
  source: ToolSource;
}

/** Something that wants a name: its own name and the server it comes from. */
export interface NameClaim<T> {
  item: T;
  server: string;
  name: string;
}

export interface UniqueNameOptions {
  /** Makes a raw name acceptable (tools: sanitizeToolName); default: kept as it is. */
  clean?: (raw: string) => string;
  /** Longest name: numbering shortens the base to fit. */
  maxLength?: number;
}

/**
 * Model-visible names for the tools of several sources. A name two sources
 * share is prefixed with each server's name (`server_tool`) so neither
 * shadows the other. Sources that are down count with their last known tools,
 * so a server going away and coming back does not rename anyone's tools.
 */
export function nameTools(
  lists: readonly { source: ToolSource; tools: readonly ToolSpec[] }[],
): Map<string, NamedTool> {
  const claims = lists.flatMap(({ source, tools }) =>
    tools.map((tool) => ({ item: { source, tool }, server: tool.origin.server, name: tool.name })),
  );
  const named = new Map<string, NamedTool>();
  for (const { name, item } of uniqueNames(claims, { clean: sanitizeToolName, maxLength: MAX_NAME_LENGTH })) {
    named.set(name, { source: item.source, spec: { ...item.tool, name } });
  }
  return named;
}

/**
 * One name per claim, in order, no two alike: a name two claims share is
 * prefixed with each one's server (`server_name`); a name still taken (one
 * server listed twice, or a prefix collision) is numbered (`name_2`).
 */
export function uniqueNames<T>(
  claims: readonly NameClaim<T>[],
  options: UniqueNameOptions = {},
): { name: string; item: T }[] {
  const clean = options.clean ?? ((raw: string): string => raw);
  const maxLength = options.maxLength ?? Number.POSITIVE_INFINITY;
  const counts = new Map<string, number>();
  for (const claim of claims) {
    const key = clean(claim.name);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const taken = new Set<string>();
  return claims.map(({ item, server, name: raw }) => {
    const base = clean(raw);
    let name = (counts.get(base) ?? 0) > 1 ? clean(`${server}_${raw}`) : base;
    for (let n = 2; taken.has(name); n++) name = withSuffix(base, `_${n}`, maxLength);
    taken.add(name);
    return { name, item };
  });
}

/** Makes any name acceptable to every model API: `[a-zA-Z0-9_-]{1,64}`. */
export function sanitizeToolName(raw: string): string {
  if (TOOL_NAME_PATTERN.test(raw)) return raw;
  const cleaned = raw.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  const name = cleaned === '' ? 'tool' : cleaned;
  return name.length <= MAX_NAME_LENGTH ? name : name.slice(0, MAX_NAME_LENGTH);
}

function withSuffix(base: string, suffix: string, maxLength: number): string {
  return base.slice(0, Math.max(0, maxLength - suffix.length)) + suffix;
}
