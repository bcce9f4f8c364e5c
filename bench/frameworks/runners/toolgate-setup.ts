// What the toolgate runners share: the tools defined in code with
// defineTool (with the zod toolgate resolves), and createToolgate pointed at the mock as an OpenAI-compatible
// endpoint. createToolgate uses the process's one shared validator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalTool, Toolgate } from '../../../src/index.ts';
import { loadToolgate, loadToolgateZod } from '../toolgate-package.ts';
import { API_KEY, MODEL_NAME, type RunnerOptions } from '../runner.ts';
import { keyOf, zodObjectOf } from '../zod-shapes.ts';
import { lookup, notCalled, type ToolShape } from '../workload.ts';

const { createToolgate, defineTool } = await loadToolgate();
// One zod, as in a user's project (see loadToolgateZod).
const zod = await loadToolgateZod();

export function toolgateTools(shapes: ToolShape[]): LocalTool[] {
  return shapes.map(
    (shape) =>
      defineTool({
        name: shape.name,
        description: shape.description,
        inputSchema: zodObjectOf(shape, zod),
        effect: 'read',
        execute: async (args) => (shape.name === 'lookup' ? lookup(keyOf(args)) : notCalled(shape.name)),
      }) as LocalTool,
  );
}

/** A temporary folder for a SQLite file, removed by `remove`. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'toolgate-bench-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function openToolgate(options: RunnerOptions, store: string): Promise<Toolgate> {
  return createToolgate({
    model: `openai:${MODEL_NAME}`,
    providers: { openai: { baseUrl: options.url, apiKey: API_KEY } },
    tools: toolgateTools(options.tools),
    store,
    stream: options.stream,
  });
}
