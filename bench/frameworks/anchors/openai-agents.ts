// OpenAI Agents SDK: an Agent with the tools, `run` (streaming: `stream: true`
// and the text stream). The model comes from OpenAIProvider with
// `useResponses: false`: its OpenAI client pointed at the mock and the
// chat-completions model, not the Responses API. Tracing is off: its exporter
// would send every run to OpenAI.
import { Agent, OpenAIProvider, run, setTracingDisabled, tool, type Tool } from '@openai/agents';
import { API_KEY, MODEL_NAME, type CreateRunner } from '../runner.ts';
import { lookup, MODEL_STEPS, notCalled, PROMPT } from '../workload.ts';
import { z } from 'zod';
import { keyOf, zodObjectOf } from '../zod-shapes.ts';

export const createRunner: CreateRunner = async ({ url, tools, stream }) => {
  setTracingDisabled(true);
  const model = await new OpenAIProvider({ baseURL: url, apiKey: API_KEY, useResponses: false }).getModel(MODEL_NAME);
  const agentTools: Tool[] = tools.map((shape) =>
    tool({
      name: shape.name,
      description: shape.description,
      parameters: zodObjectOf(shape, z),
      execute: async (args: unknown) => (shape.name === 'lookup' ? lookup(keyOf(args)) : notCalled(shape.name)),
    }),
  );
  const agent = new Agent({ name: 'bench', model, tools: agentTools });
  const maxTurns = MODEL_STEPS + 4;
  return {
    async run(onText) {
      if (!stream) return String((await run(agent, PROMPT, { maxTurns })).finalOutput);
      const result = await run(agent, PROMPT, { stream: true, maxTurns });
      for await (const piece of result.toTextStream()) if (piece !== '') onText();
      await result.completed;
      return String(result.finalOutput);
    },
    close: async () => undefined,
  };
};
