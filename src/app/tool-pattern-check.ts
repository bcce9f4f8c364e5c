import { checkToolPatterns, toolRefOf, type PatternFinding, type PatternUse } from '../gate/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { TODO_TOOLS } from '../orchestrator/step/todo-tools.ts';
import type { Toolgate } from './toolgate.ts';

export type { PatternFinding } from '../gate/index.ts';

/**
 * Every tool pattern the configuration uses: rules (`tools`), tenants' allow and deny, gateway rate limits, and the
 * gateway's virtual servers (`gateway.endpoints`).
 */
export function toolPatternUses(settings: Pick<Settings, 'tools' | 'tenants' | 'gatewayConfig'>): PatternUse[] {
  const uses: PatternUse[] = Object.keys(settings.tools).map((pattern) => ({ pattern, where: 'tools' }));
  for (const [tenant, rule] of Object.entries(settings.tenants)) {
    for (const list of ['allow', 'deny'] as const)
      for (const pattern of rule[list] ?? []) uses.push({ pattern, where: `tenants.${tenant}.${list}` });
  }
  for (const pattern of Object.keys(settings.gatewayConfig.rateLimits?.tools ?? {}))
    uses.push({ pattern, where: 'gateway.rateLimits.tools' });
  for (const [path, endpoint] of Object.entries(settings.gatewayConfig.endpoints ?? {})) {
    for (const list of ['tools', 'deny', 'approve'] as const)
      for (const pattern of endpoint[list] ?? []) uses.push({ pattern, where: `gateway.endpoints["${path}"].${list}` });
  }
  return uses;
}

/**
 * The configuration's tool patterns that name no tool, checked against the
 * tools the servers listed (and the built-in todo tools, which a run may turn
 * on). Waits for the servers as a run would; a server that has never listed
 * makes the patterns that could name its tools unverifiable, not wrong.
 */
export async function findUnmatchedToolPatterns(
  toolgate: Toolgate,
  settings: Pick<Settings, 'tools' | 'tenants' | 'gatewayConfig'> = toolgate.settings,
): Promise<PatternFinding[]> {
  const uses = toolPatternUses(settings);
  if (uses.length === 0) return [];
  const known = await toolgate.tools.knownTools();
  const tools = [...known.map(({ spec }) => toolRefOf(spec)), ...TODO_TOOLS.map((spec) => toolRefOf(spec))];
  const unknownServers = toolgate
    .toolHealth()
    .filter((health) => health.state !== 'up' && !known.some(({ spec }) => spec.origin.server === health.name))
    .map((health) => health.name);
  return checkToolPatterns({ uses, tools, unknownServers });
}

/** One finding as a sentence: where the pattern is, what is wrong, what was likely meant. */
export function describePatternFinding(finding: PatternFinding): string {
  const at =
    finding.where === 'tools' || finding.where === 'gateway.rateLimits.tools'
      ? `${finding.where}."${finding.pattern}"`
      : `"${finding.pattern}" in ${finding.where}`;
  const meant = finding.closest === undefined ? '' : ` — did you mean "${finding.closest}"?`;
  if (finding.kind === 'unverifiable') {
    const servers = finding.servers.map((s) => `"${s}"`).join(', ');
    return (
      `${at} matches no tool listed so far${meant === '' ? '.' : meant} It cannot be checked yet: it ` +
      `may name a tool of ${servers}, whose tools are not known (the server is down or still starting)`
    );
  }
  return `${at} matches no tool${meant} (the rule applies to nothing)`;
}
