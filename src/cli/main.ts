import { ToolgateError } from '../core/index.ts';
import { runCommand } from './run-command.ts';
import { toolsCommand } from './tools-command.ts';
import { demoCommand } from './demo-command.ts';
import { parseCommand } from './parse-command.ts';
import { serveCommand } from './serve-command.ts';
import { EXIT, type CliIO, usageError } from './cli-io.ts';

export const USAGE = `toolgate — a control plane between your app, any LLM and the MCP tools it may call

Usage:
  toolgate run <prompt> --model <provider:model> [--base-url URL] [--api-key KEY]
               [--mcp <command line | http(s) URL>]... [--config toolgate.yaml]
               [--max-steps N] [--tool-mode native|prompted|auto] [--constrain]
               [--dry-run] [--yes] [--user ID] [--tenant ID] [--context k=v]... [--json]
  toolgate tools [--mcp …]... [--config toolgate.yaml] [--tenant ID] [--json]
  toolgate parse [--tools a,b,c | --tools-file tools.json] [--truncated] [--jsonl] [FILE|-]
  toolgate serve [--config toolgate.yaml] [--port 8787] [--host 127.0.0.1]
                 [--store sqlite:./data/toolgate.db | memory:] [--mcp …]... [--model …] [--demo]
  toolgate demo            run the scripted demo against the power-exchange example
  toolgate help | --help   this text
  toolgate --version

Models: openai:<model> (any OpenAI-compatible server: OpenAI, Ollama /v1, vLLM,
llama.cpp, LM Studio, DeepSeek, OpenRouter… with --base-url / OPENAI_BASE_URL and
--api-key / OPENAI_API_KEY) or scripted:<file.json> (replays a script).

Exit codes: 0 completed, 1 run failed, 2 usage or configuration error,
3 waiting for an approval that cannot be asked (no terminal and no --yes).
Documentation: README.md and docs/ in the package.`;

const VERSION = '0.1.0';

/** Runs the CLI; resolves with the process exit code. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'tools':
        return await toolsCommand(rest, io);
      case 'demo':
        return await demoCommand(rest, io);
      case 'parse':
        return await parseCommand(rest, io);
      case 'serve':
        return await serveCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(`${USAGE}\n`);
        return command === undefined ? EXIT.usage : EXIT.ok;
      case '--version':
      case '-v':
        io.stdout.write(`${VERSION}\n`);
        return EXIT.ok;
      default:
        throw usageError(`unknown command "${command}"; commands: run, serve, tools, parse, demo, help`);
    }
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIO): number {
  if (error instanceof ToolgateError) {
    const isUsage = error.code === 'usage' || error.code === 'config_invalid';
    io.stderr.write(`toolgate: ${error.message}\n`);
    if (error.code === 'usage') io.stderr.write(`Run "toolgate help" for usage.\n`);
    return isUsage ? EXIT.usage : EXIT.failed;
  }
  io.stderr.write(`toolgate: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.failed;
}
