// Every runner of the comparison, in the order they are run and shown. Anchor
// runners (another framework) live under anchors/, the only files that import
// the bench package's dependencies.

export interface RunnerEntry {
  id: string;
  label: string;
  /** Relative to this folder. */
  file: string;
  /** The npm packages whose versions the report names. */
  packages: string[];
  /**
   * A service the runner needs besides the mock. compare.ts checks it once,
   * before any child starts: when it is missing the runner is shown as skipped,
   * with the reason, rather than failed.
   */
  needs?: 'postgres';
}

export const BASELINE_ID = 'baseline';
export const BASELINE_HTTP_ID = 'baseline-node-http';
export const BASELINE_UNDICI_ID = 'baseline-undici';

export const RUNNERS: RunnerEntry[] = [
  { id: BASELINE_ID, label: 'hand-written fetch loop', file: './runners/baseline.ts', packages: [] },
  // The same loop over node:http, a lighter client than fetch (toolgate's model calls used it before undici).
  { id: BASELINE_HTTP_ID, label: 'hand-written node:http loop', file: './runners/baseline-node-http.ts', packages: [] },
  // The same loop directly on undici's dispatcher, toolgate's own HTTP client: the floor toolgate's targets against a
  // hand-written loop are judged on.
  { id: BASELINE_UNDICI_ID, label: 'hand-written undici loop', file: './runners/baseline-undici.ts', packages: [] },
  { id: 'toolgate-memory', label: 'toolgate, memory store', file: './runners/toolgate-memory.ts', packages: [] },
  { id: 'toolgate-sqlite', label: 'toolgate, SQLite store', file: './runners/toolgate-sqlite.ts', packages: [] },
  { id: 'toolgate-http', label: 'toolgate HTTP server (SQLite)', file: './runners/toolgate-http.ts', packages: [] },
  // The same server asked through its OpenAI-compatible route: what the drop-in protocol costs beside the runs API.
  {
    id: 'toolgate-chat',
    label: 'toolgate chat completions (SQLite)',
    file: './runners/toolgate-chat.ts',
    packages: [],
  },
  {
    id: 'toolgate-http-pg',
    label: 'toolgate HTTP server (PostgreSQL)',
    file: './runners/toolgate-http-pg.ts',
    packages: [],
    needs: 'postgres',
  },
  { id: 'ai-sdk', label: 'Vercel AI SDK', file: './anchors/ai-sdk.ts', packages: ['ai', '@ai-sdk/openai'] },
  {
    id: 'openai-agents',
    label: 'OpenAI Agents SDK',
    file: './anchors/openai-agents.ts',
    packages: ['@openai/agents', 'openai'],
  },
  {
    id: 'langgraph',
    label: 'LangGraph createReactAgent',
    file: './anchors/langgraph.ts',
    packages: ['@langchain/langgraph', '@langchain/openai', '@langchain/core'],
  },
  {
    id: 'langchain',
    label: 'langchain createAgent',
    file: './anchors/langchain.ts',
    packages: ['langchain', '@langchain/openai', '@langchain/core'],
  },
  { id: 'mastra', label: 'Mastra Agent', file: './anchors/mastra.ts', packages: ['@mastra/core'] },
];
