// LangGraph.js: the prebuilt createReactAgent with @langchain/openai's ChatOpenAI.
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import type { CreateRunner } from '../runner.ts';
import { agentRunner, chatModel, langchainTools, type MessagesAgent } from './langchain-shared.ts';

export const createRunner: CreateRunner = async (options) => {
  const agent = createReactAgent({ llm: chatModel(options), tools: langchainTools(options) });
  return agentRunner(agent as unknown as MessagesAgent, options);
};
