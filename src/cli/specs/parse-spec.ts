import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

export const PARSE_REPORT_SPEC = {
  name: 'parse report',
  summary: 'what your models did: recorded replies that were repaired or had diagnostics, by model and kind',
  usage: ['parse report [--store sqlite:<file> | <file> | postgres://…] [--model <pattern>] [--json]'],
  details:
    'Reads every model reply recorded in the store (assistant_message events) and counts, per model and ' +
    ('per kind\n(a repair kind, or a diagnostic code such as malformed_call or text_call_ignored), the ' +
      ('replies that had it,\nwith one example each: the run id and event number, an excerpt of the reply, ' +
        ('and the message. A kind that\nkeeps coming back is a format worth adding (parsing.formats, ' +
          "or the model's chat template; docs/parsing.md).\nThe store is read a page at a time."))),
  flags: {
    store: {
      type: 'string',
      value: 'sqlite:<file> | <file> | postgres://…',
      description:
        'The store to read. Default: runs.db in your data directory (TOOLGATE_HOME, else ' +
        '$XDG_DATA_HOME/toolgate, else\n~/.local/share/toolgate), where toolgate run records.',
      example: '--store sqlite:./data/toolgate.db',
    },
    model: {
      type: 'string',
      value: 'pattern',
      description: 'Only runs of models that match this pattern (* matches any characters).',
      example: '--model "openai:qwen*"',
    },
    json: {
      ...JSON_FLAG,
      description:
        'Print the report as one JSON object: {runs, replies, ' +
        'flagged, groups: [{model, type, kind, replies, example}]}.',
    },
  },
  examples: [
    'parse report',
    'parse report --store sqlite:./data/toolgate.db --model "ollama:*"',
    'parse report --store postgres://toolgate@db:5432/toolgate --json',
  ],
} as const satisfies CommandSpec;

export const PARSE_SPEC = {
  name: 'parse',
  summary: 'extract tool calls from model output (a reply, or a corpus of whole messages) and print them as JSON',
  usage: [
    'parse [--tools a,b,c | --tools-file tools.json] [--truncated] [--chat-template FILE] [FILE|-]',
    'parse --jsonl [--chat-template FILE] [FILE|-]',
    'parse --chat-template FILE --explain',
    'parse report [--store …] [--model <pattern>] [--json]',
  ],
  details:
    'Reads FILE, or standard input when FILE is - or absent (a file named report: ./report). Prints {calls, ' +
    ('diagnostics, content}: the calls\nfound (arguments repaired and typed), what ' +
      'was repaired or refused, and the text left for the user.\nSee docs/parsing.md.'),
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
      description:
        'The declared tools as a JSON array of names or of specs ({name, inputSchema}); ' +
        'schemas let the\nparser type arguments ("7" → 7 where the schema says number).',
      example: '--tools-file tools.json',
    },
    truncated: {
      type: 'boolean',
      description: "The text was cut by the model's length limit: a call it ends in is reported as truncated.",
    },
    'chat-template': {
      type: 'string',
      value: 'file',
      description:
        "The model's chat template: a .jinja file, a Hugging Face tokenizer_config.json, or a .gguf file. " +
        ('The call\nformat it renders is derived and read besides the built-in formats. A ' +
          'template that cannot be analysed is\nsaid on stderr, and the built-in formats are used.'),
      example: '--chat-template ./Qwen3-8B/tokenizer_config.json',
    },
    explain: {
      type: 'boolean',
      description:
        'With --chat-template: print the derived call format in words, then as JSON (the shape parsing.formats ' +
        'takes),\nand parse nothing. Exit code 1, with the reason, when the template cannot be analysed.',
    },
    jsonl: {
      type: 'boolean',
      description:
        'Read one assistant message per line ({"text"?, "reasoning"?, "toolCalls"?, "tools"?, ' +
        '"truncated"?, "id"?}),\nwrite one {calls, diagnostics, content} per line, with the line\'s id.',
      example: '--jsonl corpus.jsonl',
    },
  },
  subcommands: [PARSE_REPORT_SPEC],
  examples: [
    'parse --tools get_weather reply.txt',
    'parse --chat-template model.jinja --explain',
    'echo \'<tool_call>{"name":"a","arguments":{}}</tool_call>\' | toolgate parse --tools a',
    'parse --jsonl corpus.jsonl > results.jsonl',
  ],
} as const satisfies CommandSpec;
