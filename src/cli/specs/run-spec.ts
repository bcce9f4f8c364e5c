import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG, MODEL_FLAGS, STRICT_FLAG, TOOL_FLAGS } from './shared-flags.ts';

export const RUN_SPEC = {
  name: 'run',
  summary: 'run one prompt with a model and MCP tools, showing every call and what the gate did',
  usage: ['run <prompt> --model <provider:model> [--mcp <server>]... [flags]'],
  details:
    'The answer streams to stdout; tool calls, results, approvals and a summary go to stderr. Calls that ' +
    ('change\nstate wait for your approval on a terminal (approve, reject with a reason, or edit the ' +
      ('arguments).\nEvery run is recorded (see --store): `toolgate runs` lists and shows it, and continues ' +
        ('one that waits.\n\nExit codes: 0 completed, 1 failed or cancelled, 2 usage or configuration error, ' +
          ('3 waiting for an approval\nthat cannot be asked here (no terminal and no --yes): decide later ' +
            ('with `toolgate runs approve <run-id>`\nor `toolgate ' +
              'runs reject <run-id> --reason "…"`, as the message says.'))))),
  flags: {
    ...MODEL_FLAGS,
    ...TOOL_FLAGS,
    strict: STRICT_FLAG,
    'max-steps': {
      type: 'string',
      value: 'N',
      description: 'Model turns before the run fails with max_steps. Default: maxSteps in the config file, then 20.',
      example: '--max-steps 8',
    },
    'tool-mode': {
      type: 'string',
      value: 'native|prompted|auto',
      description:
        "How tools reach the model: native (the API's tool calling, default), prompted (tools described " +
        ('in the\nprompt, calls read from the answer text; for models without ' +
          'tool calling), auto (native, prompted if the\nendpoint refuses tools).'),
      example: '--tool-mode prompted',
    },
    strategy: {
      type: 'string',
      value: 'react|plan|reflect|auto',
      description:
        'How the run is driven (docs/strategies.md): react (call tools until an answer, default), plan (a ' +
        ('whole plan,\nchecked and approved before any step runs), reflect (the model critiques failures ' +
          ('and chooses what next),\nauto (a router picks a plain answer, ' +
            'react or plan). Default: strategy in the config file, then react.')),
      example: '--strategy plan',
    },
    todo: {
      type: 'boolean',
      description:
        'Offer the built-in todo tools (todo_write, todo_read) and remind the model to keep its list current.',
    },
    'chat-template': {
      type: 'string',
      value: 'file | server',
      description:
        "The model's chat template, over parsing.chatTemplates of the config file: a .jinja file, a Hugging " +
        ("Face\ntokenizer_config.json, a .gguf file, or server (asks the model's server: llama.cpp's GET " +
          ('/props). The call format\nit renders is read besides the built-in formats. One ' +
            'that cannot be analysed is said, and the run goes on\nwith the built-in formats.')),
      example: '--chat-template ./Qwen3-8B/tokenizer_config.json',
    },
    constrain: {
      type: 'boolean',
      description:
        "Prompted mode: hold the model's output to the call format (structured " +
        "outputs: OpenAI-compatible\nresponse_format, Ollama's format).",
    },
    'dry-run': {
      type: 'boolean',
      description: 'Reads execute; writes are validated and previewed, never executed.',
    },
    yes: {
      type: 'boolean',
      short: 'y',
      description: 'Approve every call that needs approval. Never re-executes a call whose outcome is unknown.',
    },
    user: {
      type: 'string',
      value: 'id',
      description: 'Who runs: the value of {{user.id}} in injected arguments (see docs/policy.md).',
      example: '--user alice',
    },
    tenant: {
      type: 'string',
      value: 'id',
      description: 'The tenant: its allow/deny rules apply and {{tenant.id}} is injected where configured.',
      example: '--tenant acme',
    },
    context: {
      type: 'string',
      multiple: true,
      value: 'key=value',
      description: 'A value for {{context.key}} injections.',
      example: '--context desk=power --context region=DE',
    },
    store: {
      type: 'string',
      value: 'sqlite:<file> | postgres://… | memory:',
      description:
        'Where the run is recorded, so `toolgate runs` can show it and continue it afterwards. Default: ' +
        ('runs.db in\nyour data directory (TOOLGATE_HOME, else ' +
          '$XDG_DATA_HOME/toolgate, else ~/.local/share/toolgate; ' +
          ('created\nprivate to you); memory: keeps nothing. The record holds the --mcp ' +
            'servers, the config file path and the\nworking directory, never API keys.')),
      example: '--store sqlite:./runs.db',
    },
    json: { ...JSON_FLAG, description: 'Print every event as one JSON line, exactly as stored (see docs/events.md).' },
  },
  examples: [
    'run "How much can alice buy?" --model openai:gpt-4o-mini --mcp "node examples/power-exchange/server.ts"',
    'run "What is the best ask?" --model openai:qwen2.5:7b --base-url http://localhost:11434/v1 --mcp "node server.js"',
    'run "Buy 10 MWh for alice" --config toolgate.yaml --dry-run',
  ],
} as const satisfies CommandSpec;
