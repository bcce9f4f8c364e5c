// langchain v1: createAgent (its agent loop, built on LangGraph) with ChatOpenAI.
import { createAgent } from 'langchain';
import type { CreateRunner } from '../runner.ts';
import { agentRunner, chatModel, langchainTools, type MessagesAgent } from './langchain-shared.ts';

export const createRunner: CreateRunner = async (options) => {
  const agent = createAgent({ model: chatModel(options), tools: langchainTools(options) });
  return agentRunner(agent as unknown as MessagesAgent, options);
};
