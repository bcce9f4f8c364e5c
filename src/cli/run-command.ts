import type { Run } from '../core/index.ts';
import type { Toolgate } from '../app/toolgate.ts';
import { EXIT, optionalString, parseFlags, positiveInt, usageError, type CliIO } from './cli-io.ts';
import { COMMON_FLAGS, openToolgate } from './open-toolgate.ts';
import { createEventPrinter } from './event-printer.ts';

const RUN_FLAGS = {
  ...COMMON_FLAGS,
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'max-steps': { type: 'string' },
} as const;

export async function runCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, RUN_FLAGS);
  const prompt = positionals.join(' ').trim();
  if (prompt === '') throw usageError('toolgate run needs a prompt, e.g. toolgate run "What is the best ask?" --model openai:gpt-4o-mini --mcp "node server.js"');
  const model = optionalString(values, 'model');
  const baseUrl = optionalString(values, 'base-url');
  const apiKey = optionalString(values, 'api-key');
  const maxSteps = positiveInt(optionalString(values, 'max-steps'), '--max-steps');
  const toolgate = openToolgate(
    values,
    {
      ...(model === undefined ? {} : { model }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
    },
    io,
  );
  try {
    return await runAndPrint(toolgate, { input: prompt, json: values['json'] === true }, io);
  } finally {
    await toolgate.close();
  }
}

/** Runs one prompt, printing events as they happen; returns the exit code. */
export async function runAndPrint(toolgate: Toolgate, request: { input: string; json: boolean }, io: CliIO): Promise<number> {
  // Resolve the model first so a bad --model is a usage error (exit 2), not a failed run.
  await toolgate.model();
  const printer = createEventPrinter({ io, json: request.json });
  const run: Run = await toolgate.run({
    input: request.input,
    onEvent: (event) => printer.print(event),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  });
  printer.end(run);
  return run.status === 'completed' ? EXIT.ok : EXIT.failed;
}
