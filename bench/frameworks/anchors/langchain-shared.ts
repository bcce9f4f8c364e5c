// What the LangGraph and langchain runners share: ChatOpenAI (chat
// completions) at the mock's URL, the tools made with @langchain/core's
// `tool`, and the answer read from an agent's run — invoke, or stream with
// `streamMode: 'messages'` (the model's tokens as they come).
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { API_KEY, MODEL_NAME, type Runner, type RunnerOptions } from '../runner.ts';
import { lookup, notCalled, PROMPT } from '../workload.ts';
import { z } from 'zod';
import { keyOf, zodObjectOf } from '../zod-shapes.ts';

export function chatModel(options: RunnerOptions): ChatOpenAI {
  return new ChatOpenAI({ model: MODEL_NAME, apiKey: API_KEY, configuration: { baseURL: options.url }, streaming: options.stream });
}

export function langchainTools(options: RunnerOptions): StructuredToolInterface[] {
  return options.tools.map((shape) =>
    tool(async (args: unknown) => (shape.name === 'lookup' ? lookup(keyOf(args)) : notCalled(shape.name)), {
      name: shape.name,
      description: shape.description,
      schema: zodObjectOf(shape, z),
    }),
  );
}

/** The part of a compiled LangGraph graph both agents are: invoke and stream of messages. */
export interface MessagesAgent {
  invoke(input: { messages: { role: string; content: string }[] }): Promise<{ messages: BaseMessage[] }>;
  stream(input: { messages: { role: string; content: string }[] }, options: { streamMode: 'messages' }): Promise<AsyncIterable<[BaseMessage, unknown]>>;
}

export function agentRunner(agent: MessagesAgent, options: RunnerOptions): Runner {
  const input = () => ({ messages: [{ role: 'user', content: PROMPT }] });
  return {
    async run(onText) {
      if (!options.stream) {
        const { messages } = await agent.invoke(input());
        return messages[messages.length - 1]?.text ?? '';
      }
      let answer = '';
      for await (const [message] of await agent.stream(input(), { streamMode: 'messages' })) {
        if (!AIMessageChunk.isInstance(message)) continue;
        const text = message.text;
        if (text === '') continue;
        answer += text;
        onText();
      }
      return answer;
    },
    close: async () => undefined,
  };
}
