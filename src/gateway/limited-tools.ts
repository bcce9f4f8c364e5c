import type { CallToolRequest, ToolListing, ToolResult, ToolSource, ToolSpec } from '../core/index.ts';
import { GATEWAY_LIMIT_LABEL, limitResult } from './limit-result.ts';

/**
 * The tools of `source` with every result cut to `maxResultBytes` before it is
 * recorded or sent (recorded as `truncated`); `label` names the limit in the
 * note a cut result ends with. Listing and passthrough are the source's own.
 */
export function limitedTools(source: ToolSource, maxResultBytes: number, label = GATEWAY_LIMIT_LABEL): ToolSource {
  const { listing, passthrough } = source;
  return {
    name: source.name,
    listTools: (options?: { signal?: AbortSignal }): Promise<ToolSpec[]> => source.listTools(options),
    callTool: async (request: CallToolRequest): Promise<ToolResult> =>
      limitResult(await source.callTool(request), maxResultBytes, label),
    close: () => source.close(),
    ...(listing === undefined
      ? {}
      : { listing: (options?: { signal?: AbortSignal }): Promise<ToolListing> => listing.call(source, options) }),
    ...(passthrough === undefined ? {} : { passthrough }),
  };
}
