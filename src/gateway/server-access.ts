import { isJsonObject, type JsonObject } from '../core/index.ts';
import type { ToolCatalog } from '../orchestrator/call/tool-catalog.ts';
import { endpointServers } from './endpoints.ts';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';

/** The `_meta` key that names the configured server an item comes from. */
export const SERVER_META_KEY = 'toolgate/server';

/** Which servers (and which of their resources and prompts) a session may use. */
export interface ServerAccess {
  server: (name: string) => boolean;
  item: (item: JsonObject) => boolean;
}

/**
 * Resources and prompts follow their server: shown when the tenant may use at
 * least one of its tools (or the server offers no tools at all); at a virtual
 * server, only of the servers it offers (`offered`).
 */
export function serverAccess(catalog: ToolCatalog, offered?: ((server: string) => boolean) | undefined): ServerAccess {
  const usable = new Set<string>();
  const withTools = new Set<string>();
  for (const entry of catalog.visible.values()) {
    usable.add(entry.tool.origin.server);
    withTools.add(entry.tool.origin.server);
  }
  for (const { entry } of catalog.denied.values()) withTools.add(entry.tool.origin.server);
  const server = (name: string): boolean =>
    (offered === undefined || offered(name)) && (usable.has(name) || !withTools.has(name));
  return {
    server,
    item: (item) => {
      const meta = item['_meta'];
      const name = isJsonObject(meta) ? meta[SERVER_META_KEY] : undefined;
      return typeof name === 'string' && server(name);
    },
  };
}

/** What the session may use, with the catalog it was read from (its endpoint's servers only, at a virtual server). */
export function sessionAccess(gateway: Gateway, session: GatewaySession, catalog: ToolCatalog): ServerAccess {
  return serverAccess(catalog, endpointServers(gateway.endpointOf(session), catalog));
}
