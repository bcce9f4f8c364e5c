import { ToolgateError, type JsonSchema, type ModelToolDefinition, type ToolSpec } from '../../core/index.ts';
import {
  EMPTY_POLICY,
  injectedSchemaView,
  isToolAllowed,
  resolveToolPolicy,
  type Policy,
  type ResolvedToolPolicy,
} from '../../gate/index.ts';

export interface CatalogEntry {
  /** The tool as its source lists it (full schema). */
  tool: ToolSpec;
  policy: ResolvedToolPolicy;
  /** What the model is shown: the schema without injected properties. */
  definition: ModelToolDefinition;
  /** A tool the caller runs itself: validated and normalised by the gate, then handed back, never executed here. */
  client?: true;
}

/**
 * The tools of one run, as the gate sees them for the run's tenant: visible
 * tools (offered to the model) and denied ones (hidden; a call to one is
 * refused with a clear reason instead of "no such tool").
 */
export interface ToolCatalog {
  visible: ReadonlyMap<string, CatalogEntry>;
  denied: ReadonlyMap<string, { entry: CatalogEntry; reason: string }>;
  /** The visible tools as the model is shown them, in listing order (built once per run, not per step). */
  definitions: readonly ModelToolDefinition[];
  /** The visible tools as the parser knows them (with the schema the model is shown, to type its values). */
  refs: readonly { name: string; hasRequiredArgs: boolean; inputSchema: JsonSchema }[];
}

export function buildToolCatalog(
  tools: readonly ToolSpec[],
  /** `roles`: the run's caller's (RunSettings.roles), for the tenant's role rules. */
  options: { policy?: Policy; tenantId?: string | undefined; roles?: readonly string[] | undefined },
): ToolCatalog {
  const policy = options.policy ?? EMPTY_POLICY;
  const visible = new Map<string, CatalogEntry>();
  const denied = new Map<string, { entry: CatalogEntry; reason: string }>();
  for (const tool of tools) {
    const resolved = resolveToolPolicy(policy, tool, tool.name);
    const entry: CatalogEntry = {
      tool,
      policy: resolved,
      definition: {
        name: tool.name,
        description: tool.description,
        parameters: injectedSchemaView(tool.inputSchema, Object.keys(resolved.inject)),
      },
    };
    const allowed = isToolAllowed(policy, options, tool);
    if (allowed.allowed) visible.set(tool.name, entry);
    else denied.set(tool.name, { entry, reason: allowed.reason ?? `tool ${tool.name} is not allowed` });
  }
  const definitions = [...visible.values()].map((e) => e.definition);
  const refs = definitions.map((d) => ({
    name: d.name,
    hasRequiredArgs: Array.isArray(d.parameters['required']) && d.parameters['required'].length > 0,
    inputSchema: d.parameters,
  }));
  return { visible, denied, definitions, refs };
}

/** The policy of a client tool: the caller's own, so no rule of the tenant applies; never a write toolgate performs. */
const CLIENT_TOOL_POLICY: ResolvedToolPolicy = {
  effect: 'read',
  effectSource: 'default',
  approval: 'never',
  inject: {},
  returnDirect: false,
  untrusted: false,
  untrustedSource: 'default',
  unknownOutcome: 'ask',
};

/**
 * The catalog with the caller's own tools added (RunSettings.clientTools), visible whatever the tenant's rules say.
 * A name already listed by a tool source is refused: a call to it would be ambiguous.
 */
export function withClientTools(catalog: ToolCatalog, tools: readonly ModelToolDefinition[]): ToolCatalog {
  if (tools.length === 0) return catalog;
  const visible = new Map(catalog.visible);
  for (const tool of tools) {
    if (visible.has(tool.name) || catalog.denied.has(tool.name)) {
      throw new ToolgateError('usage', `client tool ${tool.name} has the name of a tool toolgate runs; rename it`);
    }
    const spec: ToolSpec = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters,
      origin: { kind: 'client', server: 'client', tool: tool.name },
    };
    visible.set(tool.name, { tool: spec, policy: CLIENT_TOOL_POLICY, definition: tool, client: true });
  }
  const definitions = [...catalog.definitions, ...tools];
  const refs = [
    ...catalog.refs,
    ...tools.map((d) => ({
      name: d.name,
      hasRequiredArgs: Array.isArray(d.parameters['required']) && d.parameters['required'].length > 0,
      inputSchema: d.parameters,
    })),
  ];
  return { visible, denied: catalog.denied, definitions, refs };
}
