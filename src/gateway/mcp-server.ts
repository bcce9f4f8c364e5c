import { ProtocolError, ProtocolErrorCode, Server, type ServerContext, type Tool } from '@modelcontextprotocol/server';
import {
  ToolgateError,
  isJsonObject,
  type JsonObject,
  type JsonSchema,
  type PassthroughSource,
} from '../core/index.ts';
import type { CatalogEntry } from '../orchestrator/call/tool-catalog.ts';
import { callTool } from './call-tool.ts';
import { exchangedCallTool } from './exchanged-call-tool.ts';
import type { Gateway } from './gateway.ts';
import type { GatewayIdentity, GatewaySession } from './gateway-session.ts';
import { endpointServers, type GatewayEndpoint } from './endpoints.ts';
import { createGated } from './gated-results.ts';
import { itemsView, toolsView, type ListKind } from './list-changed.ts';
import { OwnNotifications } from './own-notifications.ts';
import { askThroughExchanges, offerUpstream } from './offer-upstream.ts';
import { progressRelay, withProgress } from './progress-relay.ts';
import { serverAccess } from './server-access.ts';
import { sessionPassthrough } from './session-passthrough.ts';
import { serveUpstreamFeatures } from './upstream-features.ts';
import { UpstreamHub } from './upstream-hub.ts';

export const GATEWAY_SERVER_INFO = { name: 'toolgate-gateway', version: '0.1.0' };

/** What one SDK server instance serves: a stdio connection, a 2025-era HTTP session, or one 2026-era HTTP request. */
export interface ServingUnit {
  transport: 'stdio' | 'http';
  identity: GatewayIdentity;
  /** The session a request belongs to, from what the client says of itself. */
  sessionKey: (client: { name: string; version?: string } | undefined) => string;
  /** One connection for the whole session (stdio, a 2025-era HTTP session): its server is the session's `peer`. */
  persistent: boolean;
  /** The virtual server (`gateway.endpoints`) the client connected to; absent: the plain endpoint. */
  endpoint?: GatewayEndpoint | undefined;
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
  shared: PassthroughSource | undefined,
): Server {
  const { endpoint } = unit;
  // A session with upstream connections of its own is served its resources and prompts over them.
  const passthrough = shared === undefined ? undefined : sessionPassthrough(shared, () => sessionFor());
  const info =
    endpoint?.description === undefined
      ? GATEWAY_SERVER_INFO
      : { ...GATEWAY_SERVER_INFO, description: endpoint.description };
  const server = new Server(info, {
    capabilities: {
      tools: { listChanged: true },
      logging: {},
      ...(passthrough === undefined
        ? {}
        : {
            resources: { listChanged: true, ...(passthrough.offersSubscribe?.() === true ? { subscribe: true } : {}) },
            prompts: { listChanged: true },
            completions: {},
          }),
    },
    instructions:
      endpoint?.instructions ??
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
      ...(endpoint === undefined ? {} : { endpoint: endpoint.path }),
    });
    if (unit.persistent) session.peer = server;
    // A 2026-07-28 client is asked through input_required; its request's server says what it declared.
    else askThroughExchanges({ gateway, session, server });
    // A client with sampling, elicitation or roots gets upstream connections of its own (session-upstream.ts).
    if (!session.upstreamDecided)
      offerUpstream({ gateway, session, hooks: OwnNotifications.hooks({ gateway, session, shownBy: hub.lists }) });
    hub.attach(session);
    return session;
  };
  // Upstream notifications (list changes, resource updates, logs) reach the sessions through the hub.
  const hub = UpstreamHub.of(gateway, shared);
  // Rate limit, redaction and size cut on what is forwarded (gated-results.ts).
  const gated = createGated({ gateway, session: sessionFor });

  // The client's roots changed: the servers its session has connections of its own to are told (session-upstream.ts).
  server.setNotificationHandler('notifications/roots/list_changed', async () => {
    if (unit.persistent) (await sessionFor()).upstream?.set.rootsChanged();
  });
  server.setRequestHandler('tools/list', async () => {
    const session = await sessionFor();
    // A client's listing is when a changed upstream tool must be caught: the servers list again.
    const { catalog } = await gateway.catalog(session, { relist: true });
    hub.lists.remember(session, 'tools', toolsView(catalog));
    return { tools: [...catalog.visible.values()].map((entry) => listed(entry, session.identity.dryRun)) };
  });
  server.setRequestHandler(
    'tools/call',
    gated('tools/call', async (request, ctx: ServerContext) => {
      const args = request.params.arguments ?? {};
      if (!isJsonObject(args))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tools/call arguments must be a JSON object');
      const session = await sessionFor();
      const call = { gateway, server, session, name: request.params.name, arguments: args, ctx };
      const { exchanges } = session;
      return gateway.serve(session, () =>
        exchanges === undefined ? callTool(call) : exchangedCallTool(call, exchanges),
      );
    }),
  );
  const features = { server, passthrough, hub, sessionFor, gated, access: async () => access() };
  if (passthrough === undefined) {
    serveUpstreamFeatures(features);
    return server;
  }

  const access = async (): Promise<ReturnType<typeof serverAccess>> => {
    const session = await sessionFor();
    const { catalog } = await gateway.catalog(session);
    return serverAccess(catalog, endpointServers(gateway.endpointOf(session), catalog));
  };
  serveUpstreamFeatures(features);
  const visibleServers = async (): Promise<(item: JsonObject) => boolean> => (await access()).item;
  /** The items the session is shown, remembered so that an upstream change is told only when its view changed. */
  const shown = async (kind: ListKind, items: JsonObject[]): Promise<JsonObject[]> => {
    const visible = items.filter(await visibleServers());
    hub.lists.remember(await sessionFor(), kind, itemsView(visible));
    return visible;
  };
  // Resources and prompts go to the client as the upstream server sent them (PassthroughSource: plain JSON); the SDK
  // types
  // these results but does not check them, so the `as never` below hand the same JSON on rather than re-validating it
  // here.

  server.setRequestHandler(
    'resources/list',
    gated('resources/list', async () => {
      return { resources: await shown('resources', await passthrough.listResources()) };
    }),
  );
  server.setRequestHandler(
    'resources/templates/list',
    gated('resources/templates/list', async () => {
      return { resourceTemplates: await shown('resourceTemplates', await passthrough.listResourceTemplates()) };
    }),
  );
  server.setRequestHandler(
    'resources/read',
    gated('resources/read', async (request, ctx: ServerContext) => {
      const open = await access();
      const listed = await passthrough.listResources();
      const known = listed.find((r) => r['uri'] === request.params.uri);
      if (known !== undefined && !open.item(known))
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `resource ${request.params.uri} is not available to you`,
        );
      // A URI nobody listed (made from a template) is asked only of the servers open to the tenant.
      // An upstream server is not trusted to keep its resources small: `gated` cuts it like a tool result.
      return withProgress(progressRelay(ctx), (onProgress) =>
        mcpCall(() =>
          passthrough.readResource(request.params.uri, {
            servers: open.server,
            signal: ctx.mcpReq.signal,
            ...(onProgress === undefined ? {} : { onProgress }),
          }),
        ),
      );
    }),
  );
  server.setRequestHandler(
    'prompts/list',
    gated('prompts/list', async () => {
      return { prompts: await shown('prompts', await passthrough.listPrompts()) };
    }),
  );
  server.setRequestHandler(
    'prompts/get',
    gated('prompts/get', async (request, ctx: ServerContext) => {
      const visible = await visibleServers();
      const prompt = (await passthrough.listPrompts()).find((p) => p['name'] === request.params.name);
      if (prompt === undefined || !visible(prompt))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `there is no prompt named "${request.params.name}"`);
      return withProgress(progressRelay(ctx), (onProgress) =>
        mcpCall(() =>
          passthrough.getPrompt(request.params.name, request.params.arguments, {
            signal: ctx.mcpReq.signal,
            ...(onProgress === undefined ? {} : { onProgress }),
          }),
        ),
      );
    }),
  );
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
