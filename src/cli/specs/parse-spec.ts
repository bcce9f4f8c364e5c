import type { CommandSpec } from '../command-spec.ts';

export const PARSE_SPEC = {
  name: 'parse',
  summary: 'extract tool calls from model output (a reply, or a corpus of whole messages) and print them as JSON',
  usage: ['parse [--tools a,b,c | --tools-file tools.json] [--truncated] [FILE|-]', 'parse --jsonl [FILE|-]'],
  details: 'Reads FILE, or standard input when FILE is - or absent. Prints {calls, diagnostics, content}: the calls\nfound (arguments repaired and typed), what was repaired or refused, and the text left for the user.\nSee docs/parsing.md.',
  flags: {
    tools: {
      type: 'string',
      value: 'a,b,c',
      description: 'The declared tool names, comma-separated. Calls to other names are reported, never returned.',
      example: '--tools get_weather,place_order',
    },
    'tools-file': {
      type: 'string',
      value: 'file',
      description: 'The declared tools as a JSON array of names or of specs ({name, inputSchema}); schemas let the\nparser type arguments ("7" → 7 where the schema says number).',
      example: '--tools-file tools.json',
    },
    truncated: {
      type: 'boolean',
      description: "The text was cut by the model's length limit: a call it ends in is reported as truncated.",
    },
    jsonl: {
      type: 'boolean',
      description:
        'Read one assistant message per line ({"text"?, "reasoning"?, "toolCalls"?, "tools"?, "truncated"?, "id"?}),\nwrite one {calls, diagnostics, content} per line, with the line\'s id.',
      example: '--jsonl corpus.jsonl',
    },
  },
  examples: ['parse --tools get_weather reply.txt', 'echo \'<tool_call>{"name":"a","arguments":{}}</tool_call>\' | toolgate parse --tools a', 'parse --jsonl corpus.jsonl > results.jsonl'],
} as const satisfies CommandSpec;
