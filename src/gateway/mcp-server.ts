import { ProtocolError, ProtocolErrorCode, Server, type ServerContext, type Tool } from '@modelcontextprotocol/server';
import {
  ToolgateError,
  isJsonObject,
  type JsonObject,
  type JsonSchema,
  type PassthroughSource,
} from '../core/index.ts';
import type { CatalogEntry, ToolCatalog } from '../orchestrator/call/tool-catalog.ts';
import { callTool } from './call-tool.ts';
import type { Gateway } from './gateway.ts';
import type { GatewayIdentity, GatewaySession } from './gateway-session.ts';
import { limitResourceContents } from './limit-result.ts';

export const GATEWAY_SERVER_INFO = { name: 'toolgate-gateway', version: '0.1.0' };
const SERVER_META_KEY = 'toolgate/server';

/** What one SDK server instance serves: a stdio connection, a 2025-era HTTP session, or one 2026-era HTTP request. */
export interface ServingUnit {
  transport: 'stdio' | 'http';
  identity: GatewayIdentity;
  /** The session a request belongs to, from what the client says of itself. */
  sessionKey: (client: { name: string; version?: string } | undefined) => string;
  /** One connection for the whole session (stdio, a 2025-era HTTP session): its server is the session's `peer`. */
  persistent: boolean;
}

/**
 * An MCP server (official SDK, low-level Server) whose tools are the
 * upstream tools as the session's tenant may use them, each call through the
 * gate; resources and prompts of the servers the tenant may use are passed
 * through unchanged.
 */
export function createGatewayServer(
  gateway: Gateway,
  unit: ServingUnit,
  passthrough: PassthroughSource | undefined,
): Server {
  const server = new Server(GATEWAY_SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      ...(passthrough === undefined ? {} : { resources: {}, prompts: {} }),
    },
    instructions:
      'Tools offered through toolgate: every call is validated, checked ' +
      'against policy and recorded; some need a person to approve them.',
  });
  const sessionFor = async (): Promise<GatewaySession> => {
    const info = server.getClientVersion();
    const client =
      info === undefined
        ? undefined
        : {
            name: String(info.name).slice(0, 100),
            ...(info.version === undefined ? {} : { version: String(info.version).slice(0, 50) }),
          };
    const protocolVersion = server.getNegotiatedProtocolVersion();
    const session = await gateway.session(unit.sessionKey(client), unit.identity, {
      transport: unit.transport,
      ...(client === undefined ? {} : { client }),
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
    });
    if (unit.persistent) session.peer = server;
    return session;
  };

  server.setRequestHandler('tools/list', async () => {
    const session = await sessionFor();
    // A client's listing is when a changed upstream tool must be caught: the servers list again.
    const { catalog } = await gateway.catalog(session, { relist: true });
    return { tools: [...catalog.visible.values()].map((entry) => listed(entry, session.identity.dryRun)) };
  });
  server.setRequestHandler('tools/call', async (request, ctx: ServerContext) => {
    const args = request.params.arguments ?? {};
    if (!isJsonObject(args))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tools/call arguments must be a JSON object');
    const session = await sessionFor();
    return gateway.serve(session, () =>
      callTool({ gateway, server, session, name: request.params.name, arguments: args, ctx }),
    );
  });
  if (passthrough === undefined) return server;

  const access = async (): Promise<ReturnType<typeof serverAccess>> => {
    const { catalog } = await gateway.catalog(await sessionFor());
    return serverAccess(catalog);
  };
  const visibleServers = async (): Promise<(item: JsonObject) => boolean> => (await access()).item;
  // Resources and prompts go to the client as the upstream server sent them (PassthroughSource: plain JSON); the SDK
  // types
  // these results but does not check them, so the `as never` below hand the same JSON on rather than re-validating it
  // here.

  server.setRequestHandler('resources/list', async () => {
    const shown = await visibleServers();
    return { resources: (await passthrough.listResources()).filter(shown) as never };
  });
  server.setRequestHandler('resources/templates/list', async () => {
    const shown = await visibleServers();
    return { resourceTemplates: (await passthrough.listResourceTemplates()).filter(shown) as never };
  });
  server.setRequestHandler('resources/read', async (request) => {
    // A read costs the upstream server as a call does: it counts in the tenant's rate limit.
    const limited = await gateway.options.rateLimiter?.take((await sessionFor()).identity);
    if (limited !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, limited);
    const open = await access();
    const listed = await passthrough.listResources();
    const known = listed.find((r) => r['uri'] === request.params.uri);
    if (known !== undefined && !open.item(known))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `resource ${request.params.uri} is not available to you`,
      );
    // A URI nobody listed (made from a template) is asked only of the servers open to the tenant.
    const read = await mcpCall(() => passthrough.readResource(request.params.uri, { servers: open.server }));
    // An upstream server is not trusted to keep its resources small: cut like a tool result.
    return limitResourceContents(read, gateway.options.maxResultBytes, request.params.uri) as never;
  });
  server.setRequestHandler('prompts/list', async () => {
    const shown = await visibleServers();
    return { prompts: (await passthrough.listPrompts()).filter(shown) as never };
  });
  server.setRequestHandler('prompts/get', async (request) => {
    const shown = await visibleServers();
    const prompt = (await passthrough.listPrompts()).find((p) => p['name'] === request.params.name);
    if (prompt === undefined || !shown(prompt))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `there is no prompt named "${request.params.name}"`);
    return mcpCall(() => passthrough.getPrompt(request.params.name, request.params.arguments)) as never;
  });
  return server;
}

/** A tool as the client is shown it: injected arguments hidden, its effect as toolgate classifies it. */
function listed(entry: CatalogEntry, dryRun: boolean): Tool {
  const { tool, definition, policy } = entry;
  return {
    name: definition.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: definition.description,
    inputSchema: inputSchemaOf(definition.parameters),
    // A dry-run session's writes answer with toolgate's own summary, which no tool's output schema describes.
    ...(tool.outputSchema === undefined || dryRun ? {} : { outputSchema: outputSchemaOf(tool.outputSchema) }),
    annotations: { ...tool.annotations, readOnlyHint: policy.effect === 'read' },
  };
}

/**
 * A tool's parameters as MCP types them: an object schema (what MCP tools have), its properties an object, `required`
 * names.
 */
function inputSchemaOf(parameters: JsonSchema): Tool['inputSchema'] {
  const { type: _type, properties, required, ...rest } = parameters;
  return {
    type: 'object',
    ...(isJsonObject(properties) ? { properties } : {}),
    ...(Array.isArray(required) && required.every((name) => typeof name === 'string') ? { required } : {}),
    ...rest,
  };
}

/** An output schema as MCP types it: `$schema`, when there, a string. */
function outputSchemaOf(schema: JsonSchema): Tool['outputSchema'] {
  const { $schema, ...rest } = schema;
  return typeof $schema === 'string' ? { $schema, ...rest } : rest;
}

/**
 * Resources and prompts follow their server: shown when the tenant may use at
 * least one of its tools (or the server offers no tools at all).
 */
function serverAccess(catalog: ToolCatalog): {
  server: (name: string) => boolean;
  item: (item: JsonObject) => boolean;
} {
  const usable = new Set<string>();
  const withTools = new Set<string>();
  for (const entry of catalog.visible.values()) {
    usable.add(entry.tool.origin.server);
    withTools.add(entry.tool.origin.server);
  }
  for (const { entry } of catalog.denied.values()) withTools.add(entry.tool.origin.server);
  const server = (name: string): boolean => usable.has(name) || !withTools.has(name);
  return {
    server,
    item: (item) => {
      const meta = item['_meta'];
      const name = isJsonObject(meta) ? meta[SERVER_META_KEY] : undefined;
      return typeof name === 'string' && server(name);
    },
  };
}

async function mcpCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ToolgateError) {
      throw new ProtocolError(
        error.code === 'not_found' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
        error.message,
      );
    }
    throw error;
  }
}
