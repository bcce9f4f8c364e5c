import { ToolgateError, isJsonObject, type ToolSource } from '../core/index.ts';
import type { ServerConfig } from '../config/config-schema.ts';
import { isLocalTool, type LocalTool } from '../tools/local/define-tool.ts';
import { LocalToolSource } from '../tools/local/local-tool-source.ts';
import type { ToolEntry } from './toolgate-options.ts';

/** The source name of tools defined in code (`local/<tool>` in policy patterns). */
export const LOCAL_TOOLS_SOURCE = 'local';

/**
 * `tools` sorted into MCP server configs (by name) and sources; tools defined
 * in code become one source, `local`, listed first among the sources. Names
 * must be unique: they are what policy patterns (`server/tool`) and tool
 * origins refer to.
 */
export function sortToolEntries(entries: readonly ToolEntry[]): {
  servers: Record<string, ServerConfig>;
  sources: ToolSource[];
} {
  const servers: Record<string, ServerConfig> = {};
  const sources: ToolSource[] = [];
  const local: LocalTool[] = [];
  const taken = new Map<string, string>();
  const claim = (name: string, where: string): void => {
    const before = taken.get(name);
    if (before !== undefined)
      throw new ToolgateError(
        'usage',
        `${where}: the name "${name}" is already used by ${before}; give each tool server a name of its own`,
      );
    taken.set(name, where);
  };
  // Typed for TypeScript callers; every branch still checks, for JavaScript ones.
  entries.forEach((entry: ToolEntry, index) => {
    const where = `tools[${index}]`;
    if (isLocalTool(entry)) local.push(entry);
    else if (isToolSource(entry)) {
      claim(entry.name, where);
      sources.push(entry);
    } else if (isJsonObject(entry) && ('command' in entry || 'url' in entry)) {
      const { name, ...server } = entry;
      if (typeof name !== 'string' || name === '')
        throw new ToolgateError(
          'usage',
          `${where}: an MCP server needs a name, e.g. { name: 'crm', command: 'node', args: ['crm-server.js'] }`,
        );
      claim(name, where);
      servers[name] = server;
    } else {
      throw new ToolgateError(
        'usage',
        `${where}: expected an MCP server ({ name, command, args } or { name, url }), a defineTool() ` +
          `result or a ToolSource (name, listTools, callTool, close); got ${describe(entry)}`,
      );
    }
  });
  if (local.length > 0) {
    claim(LOCAL_TOOLS_SOURCE, 'the tools defined in code');
    sources.unshift(new LocalToolSource({ name: LOCAL_TOOLS_SOURCE, tools: local }));
  }
  return { servers, sources };
}

function isToolSource(value: unknown): value is ToolSource {
  if (typeof value !== 'object' || value === null) return false;
  return (
    'name' in value &&
    typeof value.name === 'string' &&
    'listTools' in value &&
    typeof value.listTools === 'function' &&
    'callTool' in value &&
    typeof value.callTool === 'function' &&
    'close' in value &&
    typeof value.close === 'function'
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).slice(0, 6).join(', ') || '(none)'}`;
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 60))}` : typeof value;
}
