import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isJsonObject } from '../core/index.ts';
import { parseModelText, toolRefsFrom, type ToolRef } from '../app/parse-text.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';

const PARSE_FLAGS = {
  tools: { type: 'string' },
  'tools-file': { type: 'string' },
  jsonl: { type: 'boolean' },
  truncated: { type: 'boolean' },
} as const;

/**
 * `toolgate parse`: runs the tool-call extractor on model output and prints the
 * result as JSON. `--jsonl` evaluates a corpus: one `{"text", "tools"}` per line in,
 * one result per line out.
 */
export async function parseCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, PARSE_FLAGS);
  if (positionals.length > 1) throw usageError('toolgate parse takes at most one FILE (or - for standard input)');
  const tools = loadTools(values, io);
  const source = positionals[0] ?? '-';
  const text = source === '-' ? await readStdin(io) : readText(resolve(io.cwd, source));
  if (values['jsonl'] === true) {
    const lines = text.split('\n');
    let lineNo = 0;
    for (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      let item: unknown;
      try {
        item = JSON.parse(line);
      } catch (error) {
        throw usageError(`line ${lineNo}: not valid JSON (${error instanceof Error ? error.message : String(error)}); each line must be {"text": "...", "tools": ["name", ...]}`);
      }
      if (!isJsonObject(item) || typeof item['text'] !== 'string') throw usageError(`line ${lineNo}: expected {"text": "...", "tools": [...]}`);
      const lineTools = item['tools'] === undefined ? tools : toolRefsFrom(item['tools']);
      if (lineTools === undefined) throw usageError(`line ${lineNo}: "tools" must be a list of tool names`);
      const result = parseModelText(item['text'], { tools: lineTools, truncated: item['truncated'] === true });
      io.stdout.write(`${JSON.stringify({ ...(typeof item['id'] === 'string' ? { id: item['id'] } : {}), ...result })}\n`);
    }
    return EXIT.ok;
  }
  const result = parseModelText(text, { tools, truncated: values['truncated'] === true });
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return EXIT.ok;
}

function loadTools(values: Record<string, unknown>, io: CliIO): ToolRef[] {
  const list = optionalString(values, 'tools');
  const file = optionalString(values, 'tools-file');
  if (list !== undefined && file !== undefined) throw usageError('give either --tools a,b,c or --tools-file FILE, not both');
  if (list !== undefined) return list.split(',').map((s) => s.trim()).filter((s) => s !== '').map((name) => ({ name }));
  if (file === undefined) return [];
  const path = resolve(io.cwd, file);
  let value: unknown;
  try {
    value = JSON.parse(readText(path));
  } catch (error) {
    throw usageError(`--tools-file ${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const refs = toolRefsFrom(value);
  if (refs === undefined) throw usageError(`--tools-file ${file}: expected a JSON array of tool names or tool specs (e.g. the output of toolgate tools --json)`);
  return refs;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function readStdin(io: CliIO): Promise<string> {
  const stdin = io.stdin;
  if (stdin === undefined || stdin.isTTY === true) throw usageError('toolgate parse reads FILE, or standard input when it is piped: echo "<tool_call>…" | toolgate parse --tools a,b');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
