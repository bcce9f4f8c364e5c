import { closestName } from '../core/index.ts';
import { matchToolPattern, type ToolRef } from './match-tool-pattern.ts';

/** One tool pattern as the configuration uses it. */
export interface PatternUse {
  pattern: string;
  /** Where it is written, as a config path: `tools`, `tenants.acme.deny`, `gateway.rateLimits.tools`. */
  where: string;
}

/**
 * A pattern that names no tool: `matches_nothing` when every server it could
 * name was listed, `unverifiable` when a server it could name is down and its
 * tools are not known. `closest`: the known name likeliest meant (a typo).
 */
export type PatternFinding = PatternUse & { closest?: string } & (
    { kind: 'matches_nothing' } | { kind: 'unverifiable'; servers: string[] }
  );

export interface CheckToolPatternsOptions {
  uses: readonly PatternUse[];
  /** Every tool known: of the servers that listed, and built in. */
  tools: readonly ToolRef[];
  /** Servers whose tools are not known (down, or not started in time). */
  unknownServers: readonly string[];
}

/**
 * Finds the patterns a rule is written for that name no tool. Nothing else
 * says so: a `deny: ["power-exchange/cancelOrdr"]` leaves `cancelOrder`
 * allowed without a word. A pattern is checked the way the gate matches it
 * (globs included), against the tools known; one that could name a tool of a
 * server whose tools are not known is not called wrong, only unverifiable.
 */
export function checkToolPatterns(options: CheckToolPatternsOptions): PatternFinding[] {
  const findings: PatternFinding[] = [];
  for (const use of options.uses) {
    if (options.tools.some((tool) => matchToolPattern(use.pattern, tool))) continue;
    const closest = closestTo(use.pattern, options.tools);
    const near = closest === undefined ? {} : { closest };
    const couldBe = options.unknownServers.filter((server) => couldName(use.pattern, server));
    findings.push(
      couldBe.length > 0
        ? { ...use, ...near, kind: 'unverifiable', servers: couldBe }
        : { ...use, ...near, kind: 'matches_nothing' },
    );
  }
  return findings;
}

/**
 * Whether a pattern could name a tool of this server: a bare name could be any server's; `server/…` only that server's.
 */
function couldName(pattern: string, server: string): boolean {
  const slash = pattern.indexOf('/');
  if (slash < 0) return true;
  return matchToolPattern(pattern.slice(0, slash), { server: '', tool: server, exposedName: server });
}

/** The name most likely meant: a tool (`server/tool` for a qualified pattern), or `server/*` for a server glob. */
function closestTo(pattern: string, tools: readonly ToolRef[]): string | undefined {
  const slash = pattern.indexOf('/');
  if (slash < 0) return closestName(pattern, new Set(tools.flatMap((t) => [t.tool, t.exposedName])));
  const rest = pattern.slice(slash + 1);
  if (rest === '*' || rest === '**') {
    const server = closestName(pattern.slice(0, slash), new Set(tools.map((t) => t.server)));
    return server === undefined ? undefined : `${server}/${rest}`;
  }
  return closestName(pattern, new Set(tools.map((t) => `${t.server}/${t.tool}`)));
}
