import type { CallToolRequest, ToolResult, ToolSource, ToolSpec } from '../core/index.ts';
import { limitResult } from './limit-result.ts';

/** The upstream tools with every result cut to `maxResultBytes` before it is recorded or sent (recorded as `truncated`). */
export function limitedTools(source: ToolSource, maxResultBytes: number): ToolSource {
  return {
    name: source.name,
    listTools: (options?: { signal?: AbortSignal }): Promise<ToolSpec[]> => source.listTools(options),
    callTool: async (request: CallToolRequest): Promise<ToolResult> => limitResult(await source.callTool(request), maxResultBytes),
    close: () => source.close(),
  };
}
