import {
  DEFAULT_MAX_RESULT_BYTES,
  type SessionToolSet,
  type SessionToolsFactory,
  type ToolSource,
} from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { limitedTools } from '../gateway/limited-tools.ts';
import { McpToolSource } from '../tools/mcp/mcp-tool-source.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';

/**
 * Opens a gateway session's own connections to the configured MCP servers, declaring the client capabilities the
 * session's client has. The other tool sources (in-process tools) are shared with every session and outlive it;
 * the registry names tools as the shared one does, since it holds the same servers in the same order.
 */
export function sessionToolsFactory(options: {
  settings: Settings;
  /** The shared registry's sources: every one that is not an MCP server of the settings is reused. */
  shared: readonly ToolSource[];
  maxResultBytes: number;
  /** Receives the servers' stderr lines, as the shared servers' (a session's servers are the same programs). */
  onServerStderr?: ((server: string, line: string) => void) | undefined;
}): SessionToolsFactory {
  const { settings, maxResultBytes, onServerStderr } = options;
  return (client) => {
    const servers = Object.entries(settings.servers).map(
      ([name, server]) =>
        new McpToolSource({
          name,
          server,
          client,
          maxResultBytes: Math.max(maxResultBytes, settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES),
          ...(server.timeoutMs === undefined ? {} : { defaultTimeoutMs: server.timeoutMs }),
          ...(onServerStderr === undefined ? {} : { onStderr: (line: string) => onServerStderr(name, line) }),
        }),
    );
    const others = options.shared.filter((source) => !(source instanceof McpToolSource)).map(keptOpen);
    const registry = new ToolRegistry([...servers, ...others]);
    const set: SessionToolSet = {
      tools: limitedTools(registry, maxResultBytes),
      list: async () => (await registry.listing()).tools,
      refresh: () => registry.refresh(),
      rootsChanged: () => {
        for (const server of servers) server.rootsChanged();
      },
      close: () => registry.close(),
    };
    return set;
  };
}

/** A shared source as one session's registry holds it: closing the session leaves it open for the others. */
function keptOpen(source: ToolSource): ToolSource {
  const { listing } = source;
  return {
    name: source.name,
    listTools: (options) => source.listTools(options),
    callTool: (request) => source.callTool(request),
    close: () => Promise.resolve(),
    ...(listing === undefined ? {} : { listing: (options) => listing.call(source, options) }),
    ...(source.passthrough === undefined ? {} : { passthrough: source.passthrough }),
  };
}
