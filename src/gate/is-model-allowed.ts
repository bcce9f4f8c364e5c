/**
 * Which models an API client may choose. Models are the operator's choice: a
 * model id names a file (`scripted:`) or spends the server's provider keys, so
 * a client may only pick what the configuration lists.
 */
export interface ModelAccess {
  /** The configured default model (`model:`): always allowed, it is what a request without `model` gets. */
  defaultModel?: string | undefined;
  /** Server-wide patterns (`models:`); absent: only the default model. */
  models?: readonly string[] | undefined;
  /**
   * The caller's tenant patterns (`tenants.<id>.models`, else `tenants."*".models`); they narrow the server-wide list.
   */
  tenantModels?: readonly string[] | undefined;
}

export interface ModelDecision {
  allowed: boolean;
  /** Every model or pattern the caller may use, for the error message. */
  choices: string[];
}

export function isModelAllowed(model: string, access: ModelAccess): ModelDecision {
  const server = access.models;
  const tenant = access.tenantModels;
  const choices = [
    ...new Set([...(access.defaultModel === undefined ? [] : [access.defaultModel]), ...listed(server, tenant)]),
  ];
  if (model === access.defaultModel) return { allowed: true, choices };
  const inServer = server !== undefined && server.some((p) => matchModelPattern(p, model));
  const inTenant = tenant === undefined || tenant.some((p) => matchModelPattern(p, model));
  return { allowed: inServer && inTenant, choices };
}

/**
 * What to show as allowed: with a tenant list, the entries of either list that
 * the other covers (a tenant's `openai:*` over the server's `openai:gpt-4o*`
 * shows `openai:gpt-4o*`, and the reverse shows the tenant's narrower pattern).
 */
function listed(server: readonly string[] | undefined, tenant: readonly string[] | undefined): readonly string[] {
  if (server === undefined) return [];
  if (tenant === undefined) return server;
  return [
    ...tenant.filter((t) => server.some((s) => matchModelPattern(s, t))),
    ...server.filter((s) => tenant.some((t) => matchModelPattern(t, s))),
  ];
}

/**
 * `*` matches any run of characters; everything else is literal. A scripted
 * model (a file on the server) matches only a pattern that names it exactly.
 */
export function matchModelPattern(pattern: string, model: string): boolean {
  if (pattern === model) return true;
  if (model.startsWith('scripted:') || !pattern.includes('*')) return false;
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (!model.startsWith(first) || !model.endsWith(last) || model.length < first.length + last.length) return false;
  let pos = first.length;
  const end = model.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const at = model.indexOf(part, pos);
    if (at < 0 || at + part.length > end) return false;
    pos = at + part.length;
  }
  return true;
}
