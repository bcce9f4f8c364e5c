// Vercel AI SDK (v7): generateText / streamText with the tools and a step
// limit (isStepCount, v7's name for stepCountIs), the OpenAI provider's chat
// completions model (`.chat`, not the Responses API) at the mock's URL.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, streamText, tool, type ToolSet } from 'ai';
import { API_KEY, MODEL_NAME, type CreateRunner } from '../runner.ts';
import { lookup, MODEL_STEPS, notCalled, PROMPT } from '../workload.ts';
import { z } from 'zod';
import { keyOf, zodObjectOf } from '../zod-shapes.ts';

export const createRunner: CreateRunner = async ({ url, tools, stream }) => {
  const model = createOpenAI({ baseURL: url, apiKey: API_KEY }).chat(MODEL_NAME);
  const toolSet: ToolSet = {};
  for (const shape of tools) {
    toolSet[shape.name] = tool({
      description: shape.description,
      inputSchema: zodObjectOf(shape, z),
      execute: async (args: unknown) => (shape.name === 'lookup' ? lookup(keyOf(args)) : notCalled(shape.name)),
    });
  }
  // A bound above the run's length: the run ends on the answer, not on the limit.
  const stopWhen = isStepCount(MODEL_STEPS + 4);
  return {
    async run(onText) {
      if (!stream) return (await generateText({ model, tools: toolSet, stopWhen, prompt: PROMPT })).text;
      const result = streamText({ model, tools: toolSet, stopWhen, prompt: PROMPT });
      for await (const piece of result.textStream) if (piece !== '') onText();
      return await result.text;
    },
    close: async () => undefined,
  };
};
