import type { FlagSpec } from '../command-spec.ts';

/** Flags of the commands that open MCP servers. */
export const TOOL_FLAGS = {
  config: {
    type: 'string',
    value: 'file',
    description:
      'The config file (YAML or JSON). Default: toolgate.yaml, toolgate.yml or toolgate.json in the ' +
      ('working\ndirectory, if one exists. Relative paths inside ' +
        'it resolve against its folder. See docs/configuration.md.'),
    example: '--config ./ops/toolgate.yaml',
  },
  mcp: {
    type: 'string',
    multiple: true,
    value: 'command line | URL',
    description:
      'An MCP server: a command line spawned over stdio, or an http(s):// URL spoken to over Streamable ' +
      ('HTTP.\nPrefix "name=" to choose the server name (tools are ' +
        'named <server>/<tool>). Added to the servers of the config file.'),
    example: '--mcp "pe=node examples/power-exchange/server.ts" --mcp http://127.0.0.1:3000/mcp',
  },
  verbose: {
    type: 'boolean',
    description: "Print the MCP servers' stderr, each line prefixed with the server name.",
  },
} as const satisfies Record<string, FlagSpec>;

/** Flags that choose and reach a model. */
export const MODEL_FLAGS = {
  model: {
    type: 'string',
    short: 'm',
    value: 'provider:model',
    description:
      'The model: openai:<model> (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, LM Studio, ' +
      ("DeepSeek,\nOpenRouter…), anthropic:<model>, ollama:<model> (Ollama's native API), <name>:<model> " +
        ('for an endpoint\ndeclared under providers: in the config file, or scripted:<file.json> to ' +
          'replay a script (docs/providers.md).\nDefault: `model:` in the config file, then TOOLGATE_MODEL.')),
    example: '--model openai:qwen2.5:7b',
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    description:
      "Where the model's provider is, with http:// or https://: the API root of an OpenAI-compatible " +
      ("server, Anthropic's\nroot without /v1, or Ollama's host. Default: providers.<provider>.baseUrl " +
        '(host) in the config file, then\nOPENAI_BASE_URL, ANTHROPIC_BASE_URL or OLLAMA_HOST.'),
    example: '--base-url http://localhost:11434/v1',
  },
  'api-key': {
    type: 'string',
    value: 'key',
    description:
      "The key of the model's provider. Default: providers.<provider>.apiKey, then OPENAI_API_KEY or " +
      'ANTHROPIC_API_KEY.\nPrefer the environment variable: flags are visible to other users of the machine.',
    example: '--api-key "$OPENAI_API_KEY"',
  },
} as const satisfies Record<string, FlagSpec>;

export const JSON_FLAG = {
  type: 'boolean',
  description: 'Machine-readable output: JSON instead of text.',
} as const satisfies FlagSpec;

/** `serve` and `gateway`: where the HTTP server listens. */
export const HOST_FLAG = {
  type: 'string',
  value: 'address',
  description: 'The address to listen on. Default: server.host, then 127.0.0.1.',
  example: '--host 0.0.0.0',
} as const satisfies FlagSpec;

/** `serve`, `gateway`, `run` and `tools`: a tool pattern that matches no tool is an error, not a warning. */
export const STRICT_FLAG = {
  type: 'boolean',
  description:
    'Stop (exit code 2) when a tool pattern of the config ' +
    '(tools:, tenants.<id>.allow/deny,\ngateway.rateLimits.tools) ' +
    ('matches no tool of the servers, instead of warning. Also policy.strict: true\nin the ' +
      'config. A pattern that may name a tool of a server that is down is reported, not refused.'),
} as const satisfies FlagSpec;
