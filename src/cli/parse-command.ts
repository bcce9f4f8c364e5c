import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isJsonObject, describeError } from '../core/index.ts';
import { formatFromTemplate, type CallFormat } from '../app/call-formats.ts';
import {
  nativeCallsFrom,
  parseModelMessage,
  parseModelText,
  toolRefsFrom,
  type AssistantMessageInput,
  type ToolRef,
} from '../app/parse-text.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { PARSE_SPEC } from './specs/parse-spec.ts';

/**
 * `toolgate parse`: runs the tool-call extractor on model output and prints the
 * result as JSON. `--jsonl` evaluates a corpus: one assistant message per line in
 * (`{text?, reasoning?, toolCalls?, tools, truncated?}`), one `{calls,
 * diagnostics, content}` per line out (with the line's `id` when it has one).
 */
export async function parseCommand(args: readonly string[], io: CliIO): Promise<number> {
  // `parse report` reads a store, not model output (a file named report is ./report).
  if (args[0] === 'report') return (await import('./parse-report-command.ts')).parseReportCommand(args.slice(1), io);
  const { values, positionals } = parseFlags(args, PARSE_SPEC);
  if (positionals.length > 1) throw usageError('toolgate parse takes at most one FILE (or - for standard input)');
  const template = optionalString(values, 'chat-template');
  if (values['explain'] === true) {
    if (template === undefined)
      throw usageError(
        '--explain explains the call format of a chat template: toolgate parse --chat-template model.jinja --explain',
      );
    if (positionals.length > 0 || values['jsonl'] === true)
      throw usageError('--explain parses nothing: give only --chat-template FILE');
    return explainTemplate(template, io);
  }
  const formats = template === undefined ? [] : await templateFormats(template, io);
  const tools = loadTools(values, io);
  const source = positionals[0] ?? '-';
  const text = source === '-' ? await readStdin(io) : readText(resolve(io.cwd, source));
  if (values['jsonl'] === true) {
    let lineNo = 0;
    for (const line of text.split('\n')) {
      lineNo++;
      if (line.trim() === '') continue;
      const { id, message } = messageFromLine(line, lineNo, tools);
      const result = parseModelMessage(formats.length === 0 ? message : { ...message, formats });
      io.stdout.write(`${JSON.stringify({ ...(id === undefined ? {} : { id }), ...result })}\n`);
    }
    return EXIT.ok;
  }
  const result = parseModelText(text, { tools, truncated: values['truncated'] === true, formats });
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return EXIT.ok;
}

const LINE_FORMAT =
  '{"text"?: "...", "reasoning"?: "...", "toolCalls"?: [{"id"?, "name", "arguments": ' +
  '"..."}], "tools": ["name" | {"name", "description"?, "inputSchema"?}], "truncated"?: true}';

/** One corpus line → an assistant message; a usage error naming the line and what is wrong otherwise. */
function messageFromLine(
  line: string,
  lineNo: number,
  defaultTools: ToolRef[],
): { id: string | undefined; message: AssistantMessageInput } {
  const fail = (what: string): never => {
    throw usageError(`line ${lineNo}: ${what}; each line must be ${LINE_FORMAT}`);
  };
  let item: unknown;
  try {
    item = JSON.parse(line);
  } catch (error) {
    return fail(`not valid JSON (${describeError(error)})`);
  }
  if (!isJsonObject(item)) return fail('not a JSON object');
  for (const key of ['text', 'reasoning', 'id', 'finishReason'] as const) {
    if (item[key] !== undefined && typeof item[key] !== 'string') fail(`"${key}" must be a string`);
  }
  if (item['truncated'] !== undefined && typeof item['truncated'] !== 'boolean')
    fail('"truncated" must be true or false');
  if (item['text'] === undefined && item['reasoning'] === undefined && item['toolCalls'] === undefined)
    fail('it has none of "text", "reasoning" or "toolCalls"');
  const tools = item['tools'] === undefined ? defaultTools : toolRefsFrom(item['tools']);
  if (tools === undefined)
    return fail('"tools" must be a list of tool names or {"name", "description"?, "inputSchema"?: {…}} objects');
  const message: AssistantMessageInput = { tools };
  if (typeof item['text'] === 'string') message.text = item['text'];
  if (typeof item['reasoning'] === 'string') message.reasoning = item['reasoning'];
  if (typeof item['finishReason'] === 'string') message.finishReason = item['finishReason'];
  if (item['truncated'] === true) message.truncated = true;
  if (item['toolCalls'] !== undefined) {
    const calls = nativeCallsFrom(item['toolCalls']);
    if (typeof calls === 'string') fail(calls);
    else message.toolCalls = calls;
  }
  // Other keys (an evaluation corpus's "expect", "family"…) are not read.
  return { id: typeof item['id'] === 'string' ? item['id'] : undefined, message };
}

/** `--explain`: the derived format in words, then as the JSON `parsing.formats` takes. */
async function explainTemplate(source: string, io: CliIO): Promise<number> {
  const derived = await formatFromTemplate(source, { cwd: io.cwd });
  if (!derived.ok) {
    io.stderr.write(`toolgate: ${derived.reason}\n`);
    return EXIT.failed;
  }
  const notes = derived.notes.length === 0 ? '' : `\nNotes:\n${derived.notes.map((n) => `  - ${n}`).join('\n')}\n`;
  // As parsing.formats takes it (where every format is the config's own): ready to paste.
  const { origin: _origin, ...shape } = derived.format;
  io.stdout.write(`${derived.explanation.trimEnd()}\n${notes}\n${JSON.stringify(shape, null, 2)}\n`);
  return EXIT.ok;
}

/**
 * The format of `--chat-template`; one that cannot be analysed is said, and the built-in formats are used (as in a
 * run).
 */
async function templateFormats(source: string, io: CliIO): Promise<CallFormat[]> {
  const derived = await formatFromTemplate(source, { cwd: io.cwd });
  if (derived.ok) return [derived.format];
  io.stderr.write(`⚠ ${derived.reason}; parsing with the built-in formats only\n`);
  return [];
}

function loadTools(values: Record<string, unknown>, io: CliIO): ToolRef[] {
  const list = optionalString(values, 'tools');
  const file = optionalString(values, 'tools-file');
  if (list !== undefined && file !== undefined)
    throw usageError('give either --tools a,b,c or --tools-file FILE, not both');
  if (list !== undefined)
    return list
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((name) => ({ name }));
  if (file === undefined) return [];
  const path = resolve(io.cwd, file);
  let value: unknown;
  try {
    value = JSON.parse(readText(path));
  } catch (error) {
    throw usageError(`--tools-file ${file}: not valid JSON (${describeError(error)})`);
  }
  const refs = toolRefsFrom(value);
  if (refs === undefined)
    throw usageError(
      `--tools-file ${file}: expected a JSON array of tool names ` +
        `or tool specs (e.g. the output of toolgate tools --json)`,
    );
  return refs;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path}: ${describeError(error)}`);
  }
}

async function readStdin(io: CliIO): Promise<string> {
  const stdin = io.stdin;
  if (stdin === undefined || stdin.isTTY === true)
    throw usageError(
      'toolgate parse reads FILE, or standard input when it is piped: echo "<tool_call>…" | toolgate parse --tools a,b',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
