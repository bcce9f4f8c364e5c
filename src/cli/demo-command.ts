import { fileURLToPath } from 'node:url';
import { Toolgate } from '../app/toolgate.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { parseFlags, type CliIO } from './cli-io.ts';
import { runAndPrint } from './run-command.ts';
import { DEMO_SPEC } from './specs/demo-spec.ts';

/** Sources run as TypeScript in the repository; the package runs the build (dist/), where examples are JavaScript. */
const SOURCE_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
export const DEMO_SERVER = fileURLToPath(new URL(`../../examples/power-exchange/server${SOURCE_EXTENSION}`, import.meta.url));
export const DEMO_SCRIPT = fileURLToPath(new URL('../../examples/demo/demo-script.json', import.meta.url));
export const DEMO_PROMPT = 'How is the day-ahead power market looking, and how much can alice still buy?';

const BANNER = `toolgate demo — a SCRIPTED model (no LLM: it replays examples/demo/demo-script.json)
driving the power-exchange example MCP server over stdio. The tool calls below are real.

To use a real model instead:
  npx toolgate run "${DEMO_PROMPT}" \\
    --model openai:gpt-4o-mini --mcp "node examples/power-exchange/server.ts"
  (Ollama: --model openai:qwen2.5:7b --base-url http://localhost:11434/v1)
`;

export async function demoCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseFlags(args, DEMO_SPEC);
  const json = values['json'] === true;
  if (!json) io.stderr.write(`${BANNER}\n> ${DEMO_PROMPT}\n\n`);
  const settings = resolveSettings(
    { model: `scripted:${DEMO_SCRIPT}`, servers: { 'power-exchange': { command: process.execPath, args: [DEMO_SERVER] } } },
    {},
    {},
  );
  const toolgate = new Toolgate({ settings, cwd: io.cwd });
  try {
    return await runAndPrint(toolgate, { input: DEMO_PROMPT, json }, io);
  } finally {
    await toolgate.close();
  }
}
