// Mastra: an Agent whose model is an OpenAI-compatible endpoint (Mastra's
// `{ providerId, modelId, url, apiKey }` model config, chat completions) at
// the mock's URL; tools made with createTool; generate, or stream and its
// text stream. maxSteps bounds the loop above the run's length.
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { API_KEY, MODEL_NAME, type CreateRunner } from '../runner.ts';
import { lookup, MODEL_STEPS, notCalled, PROMPT } from '../workload.ts';
import { z } from 'zod';
import { keyOf, zodObjectOf } from '../zod-shapes.ts';

export const createRunner: CreateRunner = async ({ url, tools, stream }) => {
  const agentTools = Object.fromEntries(
    tools.map((shape) => [
      shape.name,
      createTool({
        id: shape.name,
        description: shape.description,
        inputSchema: zodObjectOf(shape, z),
        execute: async (args: unknown) => (shape.name === 'lookup' ? lookup(keyOf(args)) : notCalled(shape.name)),
      }),
    ]),
  );
  const agent = new Agent({
    id: 'bench',
    name: 'bench',
    instructions: '',
    model: { providerId: 'mock', modelId: MODEL_NAME, url, apiKey: API_KEY, api: 'chat' },
    tools: agentTools,
  });
  const maxSteps = MODEL_STEPS + 4;
  return {
    async run(onText) {
      if (!stream) return (await agent.generate(PROMPT, { maxSteps })).text;
      const result = await agent.stream(PROMPT, { maxSteps });
      for await (const piece of result.textStream) if (piece !== '') onText();
      return await result.text;
    },
    close: async () => undefined,
  };
};
