import { DEFAULT_MAX_RESULT_BYTES, type ToolSource, type ToolSourceHealth } from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { limitedTools } from '../gateway/limited-tools.ts';
import { McpToolSource } from '../tools/mcp/mcp-tool-source.ts';
import { ToolRegistry, type RetryOptions } from '../tools/tool-registry.ts';

/**
 * The MCP servers of the settings and the other sources behind one registry,
 * and the tools as runs get them: every result cut to `maxResultBytes`.
 */
export function runTools(options: {
  settings: Settings;
  sources: readonly ToolSource[] | undefined;
  onServerStderr: ((server: string, line: string) => void) | undefined;
  toolRetry: RetryOptions | false | undefined;
  onToolHealth: ((health: ToolSourceHealth) => void) | undefined;
}): { registry: ToolRegistry; forRuns: ToolSource } {
  const { settings, onServerStderr } = options;
  const runLimit = settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  // One connection to a server serves runs and gateway sessions: it reads as much as the larger limit keeps.
  const readLimit = Math.max(runLimit, settings.gatewayConfig.maxResultBytes ?? runLimit);
  const servers = Object.entries(settings.servers).map(
    ([name, server]) =>
      new McpToolSource({
        name,
        server,
        maxResultBytes: readLimit,
        ...(server.timeoutMs === undefined ? {} : { defaultTimeoutMs: server.timeoutMs }),
        ...(onServerStderr === undefined ? {} : { onStderr: (line: string) => onServerStderr(name, line) }),
      }),
  );
  const registry = new ToolRegistry([...servers, ...(options.sources ?? [])], {
    ...(options.toolRetry === undefined ? {} : { retry: options.toolRetry }),
    ...(options.onToolHealth === undefined ? {} : { onHealthChange: options.onToolHealth }),
  });
  return { registry, forRuns: limitedTools(registry, runLimit, 'the limit (maxResultBytes)') };
}
