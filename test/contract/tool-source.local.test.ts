// Tools defined in code (defineTool) as a ToolSource: an in-process tool's failures
// are results like an MCP server's. It has no process and no server, so it cannot be down.
import { LocalToolSource } from '../../src/tools/local/local-tool-source.ts';
import { CONTRACT_TOOL_NAMES, contractLocalTools } from '../support/contract-tools.ts';
import { toolSourceContract } from './tool-source.contract.ts';

toolSourceContract('ToolSource contract: LocalToolSource', {
  open: async () => ({
    source: new LocalToolSource({ tools: contractLocalTools() }),
    tools: CONTRACT_TOOL_NAMES,
    crashCode: 'tool_error',
  }),
});
