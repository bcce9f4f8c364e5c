import { matchToolPattern, toolRefOf } from '../gate/index.ts';
import type { CatalogEntry, ToolCatalog } from '../orchestrator/call/tool-catalog.ts';

/** The plain endpoint's path: everything the tenant may use, unless `gateway.endpoints["/mcp"]` narrows it. */
export const PLAIN_ENDPOINT = '/mcp';

/**
 * One virtual server (`gateway.endpoints`): a named bundle of tools on a path
 * of its own. Its rules narrow what the tenant may use; they never widen it.
 */
export interface GatewayEndpoint {
  path: string;
  /** Tool patterns offered there ("server/tool", "server/*", a bare or exposed name). */
  tools: readonly string[];
  /** Servers whose resources and prompts are offered there (default: the servers of its tools). */
  servers?: readonly string[] | undefined;
  /** Tenants that may connect (default: every caller). */
  tenants?: readonly string[] | undefined;
  /** Tool patterns refused there. */
  deny?: readonly string[] | undefined;
  /** Tool patterns whose every call waits for a person there. */
  approve?: readonly string[] | undefined;
  dryRun?: boolean | undefined;
  description?: string | undefined;
  instructions?: string | undefined;
}

/** Endpoints by path, as the config lists them. */
export type GatewayEndpoints = ReadonlyMap<string, GatewayEndpoint>;

/** Why the caller may not connect to `endpoint` (its tenant is not listed), or undefined when it may. */
export function endpointRefusal(endpoint: GatewayEndpoint, tenantId: string | undefined): string | undefined {
  if (endpoint.tenants === undefined) return undefined;
  if (tenantId !== undefined && endpoint.tenants.includes(tenantId)) return undefined;
  const who = tenantId === undefined ? 'a caller without a tenant' : `tenant "${tenantId}"`;
  return (
    `${who} may not connect to endpoint ${endpoint.path}: only ` +
    `${endpoint.tenants.length === 0 ? 'nobody' : endpoint.tenants.map((t) => `"${t}"`).join(', ')} may ` +
    `(gateway.endpoints["${endpoint.path}"].tenants)`
  );
}

/**
 * The tenant's catalog as the endpoint offers it: a visible tool outside its
 * `tools`, or matching its `deny`, is refused with a reason naming the
 * endpoint; a tool matching `approve` needs a person. A tool the tenant may
 * not use stays refused for the tenant's reason (a deny anywhere wins).
 */
export function narrowToEndpoint(catalog: ToolCatalog, endpoint: GatewayEndpoint | undefined): ToolCatalog {
  if (endpoint === undefined) return catalog;
  const visible = new Map<string, CatalogEntry>();
  const denied = new Map(catalog.denied);
  for (const [name, entry] of catalog.visible) {
    const matches = (patterns: readonly string[] | undefined): string | undefined =>
      patterns?.find((pattern) => matchToolPattern(pattern, toolRefOf(entry.tool, name)));
    const deny = matches(endpoint.deny);
    if (deny !== undefined) {
      denied.set(name, { entry, reason: `endpoint ${endpoint.path} denies it (rule "${deny}")` });
    } else if (matches(endpoint.tools) === undefined) {
      denied.set(name, {
        entry,
        reason: `endpoint ${endpoint.path} does not offer it (its tools: ${endpoint.tools.join(', ')})`,
      });
    } else if (matches(endpoint.approve) !== undefined && entry.policy.approval !== 'required') {
      visible.set(name, { ...entry, policy: { ...entry.policy, approval: 'required' } });
    } else {
      visible.set(name, entry);
    }
  }
  const definitions = catalog.definitions.filter((d) => visible.has(d.name));
  const refs = catalog.refs.filter((r) => visible.has(r.name));
  return { visible, denied, definitions, refs };
}

/**
 * Whether the endpoint offers a server's resources and prompts: those named
 * in its `servers`, else the servers of the tools it offers.
 */
export function endpointServers(
  endpoint: GatewayEndpoint | undefined,
  catalog: ToolCatalog,
): ((server: string) => boolean) | undefined {
  if (endpoint === undefined) return undefined;
  const named = new Set(endpoint.servers ?? [...catalog.visible.values()].map((e) => e.tool.origin.server));
  return (server) => named.has(server);
}

/**
 * The endpoint served at a request's path: `undefined` for the plain `/mcp` (unless configured), or a sentence saying
 * the path names no endpoint.
 */
export function endpointAt(
  endpoints: GatewayEndpoints | undefined,
  path: string,
): { endpoint: GatewayEndpoint | undefined } | { unknown: string } {
  const endpoint = endpoints?.get(path);
  if (endpoint !== undefined || path === PLAIN_ENDPOINT) return { endpoint };
  const known = [...(endpoints?.keys() ?? [])].filter((p) => p !== PLAIN_ENDPOINT);
  return {
    unknown:
      `no MCP endpoint at ${path.slice(0, 100)}: the gateway serves ${PLAIN_ENDPOINT}` +
      `${known.length === 0 ? '' : ` and ${known.join(', ')}`} (gateway.endpoints)`,
  };
}
