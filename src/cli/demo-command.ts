import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Toolgate } from '../app/toolgate.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { EXIT, parseFlags, type CliIO } from './cli-io.ts';
import { runAndPrint } from './run-command.ts';
import { DEMO_SPEC } from './specs/demo-spec.ts';

/** Sources run as TypeScript in the repository; the package runs the build (dist/), where examples are JavaScript. */
const SOURCE_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
export const DEMO_SERVER = fileURLToPath(
  new URL(`../../examples/power-exchange/server${SOURCE_EXTENSION}`, import.meta.url),
);
export const DEMO_SCRIPT = fileURLToPath(new URL('../../examples/demo/demo-script.json', import.meta.url));
export const DEMO_PROMPT =
  'How is the day-ahead power market looking? Then bid for alice: 7,000 MWh of DE-BASE-D+1 at 85 EUR/MWh.';
/** The demo's bid reserves 7,000 × 85 EUR: the venue's default wallet (10,000 EUR) could not hold it. */
export const DEMO_INITIAL_CASH_EUR = 1_000_000;
/** The example server as the demo starts it. */
export const DEMO_SERVER_ARGS: readonly string[] = [DEMO_SERVER, '--initial-cash', String(DEMO_INITIAL_CASH_EUR)];
const DEMO_USER = 'alice';

/** `{{user.id}}` fills in the trader: the model never chooses whose money is spent. */
const DEMO_TOOLS = { 'power-exchange/placeOrder': { inject: { userId: '{{user.id}}' } } };

/**
 * `toolgate demo`: the scripted model against the real example server, twice
 * with the same request — first as a dry run (arguments normalised, the user
 * injected, the write previewed), then for real (the write waits for
 * approval). A dry run is a property of the whole run, so showing both takes
 * two runs. Without a terminal the demo approves the write itself and says so,
 * so it still ends with exit 0 in CI and pipes.
 */
export async function demoCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseFlags(args, DEMO_SPEC);
  const json = values['json'] === true;
  const interactive = io.stdin?.isTTY === true;
  const say = (text: string) => {
    if (!json) io.stderr.write(text);
  };
  say(banner(io.cwd));
  const settings = resolveSettings(
    {
      model: `scripted:${DEMO_SCRIPT}`,
      servers: { 'power-exchange': { command: process.execPath, args: [...DEMO_SERVER_ARGS] } },
      tools: DEMO_TOOLS,
    },
    {},
    {},
  );
  const toolgate = new Toolgate({ settings, cwd: io.cwd });
  try {
    say(`── 1/2 preview: a dry run ──\n> ${DEMO_PROMPT}\n\n`);
    const preview = await runAndPrint(toolgate, { input: DEMO_PROMPT, json, dryRun: true, userId: DEMO_USER }, io);
    if (preview !== EXIT.ok) return preview;
    say(`\n── 2/2 for real: the same request; placeOrder waits for approval ──\n`);
    say(
      interactive
        ? 'Answer y to send the bid to the venue, n to reject it (the model is told why), e to edit it.\n'
        : 'There is no terminal to ask on (stdin is not a TTY), so the demo approves the bid for you.\n' +
            ('`toolgate run` would stop here with exit code 3; approve ' +
              'with --yes, run it in a terminal, or preview with --dry-run.\n'),
    );
    say(`> ${DEMO_PROMPT}\n\n`);
    return await runAndPrint(
      toolgate,
      { input: DEMO_PROMPT, json, userId: DEMO_USER, ...(interactive ? {} : { yes: true }) },
      io,
    );
  } finally {
    await toolgate.close();
  }
}

function banner(cwd: string): string {
  return (
    `toolgate demo — a SCRIPTED model (no LLM: it replays examples/demo/demo-script.json)
driving the power-exchange example MCP server over stdio. The tool calls below are real.

The model reads the market and alice's wallet, then bids for alice with arguments written
the way small models write them ("qty": "7,000", "side": "buy"). Watch the gate:
  1. preview (dry run): toolgate normalises the arguments (7000, "BUY"), fills in userId
     itself (the model never chooses whose money is spent) and shows the bid; nothing is sent;
  2. for real: the same bid waits for a person's approval, then goes to the venue once.

To use a real model instead:
  npx toolgate run "${DEMO_PROMPT}" \\
    --model openai:gpt-4o-mini --mcp "node ` +
    `${shellWord(shortestPath(cwd, DEMO_SERVER))} --initial-cash ${DEMO_INITIAL_CASH_EUR}"
  (Ollama: --model openai:qwen2.5:7b --base-url http://localhost:11434/v1)

`
  );
}

/**
 * The server's path as the user can type it where they are: relative to the working directory, or absolute when that is
 * shorter.
 */
export function shortestPath(cwd: string, file: string): string {
  const near = relative(cwd, file);
  return near === '' || isAbsolute(near) || near.length >= file.length ? file : near;
}

/** Quotes a path for the `--mcp` command line when it holds spaces or quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
