import type { FlagSpec } from '../command-spec.ts';

/** Flags of the commands that open MCP servers. */
export const TOOL_FLAGS = {
  config: {
    type: 'string',
    value: 'file',
    description:
      'The config file (YAML or JSON). Default: toolgate.yaml, toolgate.yml or toolgate.json in the working\ndirectory, if one exists. Relative paths inside it resolve against its folder. See docs/configuration.md.',
    example: '--config ./ops/toolgate.yaml',
  },
  mcp: {
    type: 'string',
    multiple: true,
    value: 'command line | URL',
    description:
      'An MCP server: a command line spawned over stdio, or an http(s):// URL spoken to over Streamable HTTP.\nPrefix "name=" to choose the server name (tools are named <server>/<tool>). Added to the servers of the config file.',
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
      'The model: openai:<model> for any OpenAI-compatible server (OpenAI, Ollama /v1, vLLM, llama.cpp,\nLM Studio, DeepSeek, OpenRouter…) or scripted:<file.json> to replay a script. Default: `model:` in the config\nfile, then TOOLGATE_MODEL.',
    example: '--model openai:qwen2.5:7b',
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    description: "The API root of the OpenAI-compatible server, with http:// or https://. Default: the config file's\nproviders.openai.baseUrl, then OPENAI_BASE_URL, then OpenAI.",
    example: '--base-url http://localhost:11434/v1',
  },
  'api-key': {
    type: 'string',
    value: 'key',
    description: "The model API's key. Default: providers.openai.apiKey, then OPENAI_API_KEY. Prefer the environment\nvariable: flags are visible to other users of the machine.",
    example: '--api-key "$OPENAI_API_KEY"',
  },
} as const satisfies Record<string, FlagSpec>;

export const JSON_FLAG = {
  type: 'boolean',
  description: 'Machine-readable output: JSON instead of text.',
} as const satisfies FlagSpec;
