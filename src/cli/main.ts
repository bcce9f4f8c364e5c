import { ToolgateError, didYouMean, describeError } from '../core/index.ts';
import { renderCommandHelp, renderOverview, type CommandSpec } from './command-spec.ts';
import { COMMANDS, type Command } from './commands.ts';
import { EXIT, type CliIO, usageError } from './cli-io.ts';
import { packageVersion } from './version.ts';

const HEADER = `toolgate — a control plane between your app, any LLM and the MCP tools it may call

Models (--model provider:model, or model: in toolgate.yaml; see docs/providers.md):
  openai:<model>        any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, LM Studio, DeepSeek,
                        OpenRouter, Ollama's /v1… (--base-url / OPENAI_BASE_URL, --api-key / OPENAI_API_KEY)
  anthropic:<model>     Anthropic's Messages API (--api-key / ANTHROPIC_API_KEY, --base-url / ANTHROPIC_BASE_URL)
  ollama:<model>        Ollama's native API (--base-url / OLLAMA_HOST)
  <name>:<model>        an endpoint declared under providers: in the config file
  scripted:<file.json>  replays a script: no model is asked

Exit codes: 0 completed, 1 run failed, 2 usage or configuration error,
3 waiting for an approval that cannot be asked here (no terminal and no --yes):
continue it later with "toolgate runs approve <run-id>" or "toolgate runs reject <run-id>".
Documentation: README.md and docs/ in the package.`;

export const USAGE = renderOverview(
  COMMANDS.map((c) => c.spec),
  HEADER,
);

/** Runs the CLI; resolves with the process exit code. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  try {
    switch (name) {
      case undefined:
        io.stdout.write(USAGE);
        return EXIT.usage;
      case 'help':
      case '--help':
      case '-h':
        return help(rest, io);
      case '--version':
      case '-v':
      case 'version':
        io.stdout.write(`${packageVersion()}\n`);
        return EXIT.ok;
      default: {
        const command = findCommand(name);
        const helpSpec = helpRequested(command.spec, rest);
        if (helpSpec !== undefined) {
          io.stdout.write(renderCommandHelp(helpSpec));
          return EXIT.ok;
        }
        const run = await command.load();
        return await run(rest, io);
      }
    }
  } catch (error) {
    return reportError(error, io);
  }
}

function findCommand(name: string): Command {
  const command = COMMANDS.find((c) => c.spec.name === name);
  if (command !== undefined) return command;
  const names = COMMANDS.map((c) => c.spec.name);
  throw usageError(`unknown command "${name}"${didYouMean(name, names)} (commands: ${names.join(', ')}, help)`);
}

/** `toolgate help [command [subcommand]]`. */
function help(args: readonly string[], io: CliIO): number {
  const [name, sub] = args;
  if (name === undefined) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const spec = findCommand(name).spec;
  const subSpec = sub === undefined ? undefined : findSubcommand(spec, sub);
  io.stdout.write(renderCommandHelp(subSpec ?? spec));
  return EXIT.ok;
}

function findSubcommand(spec: CommandSpec, sub: string): CommandSpec {
  const found = spec.subcommands?.find((s) => s.name === `${spec.name} ${sub}`);
  if (found !== undefined) return found;
  const names = (spec.subcommands ?? []).map((s) => s.name.slice(spec.name.length + 1));
  throw usageError(
    `toolgate ${spec.name} has no command "${sub}"${didYouMean(sub, names)} (commands: ${names.join(', ')})`,
  );
}

/** The spec whose help `--help` / `-h` asks for (before any `--`), if it does. */
function helpRequested(spec: CommandSpec, args: readonly string[]): CommandSpec | undefined {
  const end = args.indexOf('--');
  const flags = end === -1 ? args : args.slice(0, end);
  if (!flags.includes('--help') && !flags.includes('-h')) return undefined;
  const first = args[0];
  const sub = first === undefined ? undefined : spec.subcommands?.find((s) => s.name === `${spec.name} ${first}`);
  return sub ?? spec;
}

function reportError(error: unknown, io: CliIO): number {
  if (error instanceof ToolgateError) {
    const isUsage = error.code === 'usage' || error.code === 'config_invalid';
    io.stderr.write(`toolgate: ${error.message}\n`);
    if (error.code === 'usage' && !error.message.includes('--help'))
      io.stderr.write(`Run "toolgate help" for usage.\n`);
    return isUsage ? EXIT.usage : EXIT.failed;
  }
  io.stderr.write(`toolgate: unexpected error: ${describeError(error, { stack: true })}\n`);
  return EXIT.failed;
}
