import type { JsonSchema } from '../core/json.ts';

/**
 * Prompted tool mode, for models without native tool calling: a system-prompt
 * section that describes the tools and asks for ONE output format — the one
 * small models were trained on most (Hermes/Qwen `<tool_call>` JSON). The
 * extractor reads every other format too; asking for one keeps models consistent.
 */

export interface PromptTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface ToolPromptOptions {
  /** Heading of the section (default "# Tools"). */
  heading?: string;
}

export const DEFAULT_TOOL_PROMPT_HEADING = '# Tools';

/** The exact call format the prompt asks for (also quoted by parse feedback). */
export const TOOL_CALL_FORMAT = '<tool_call>{"name": "<tool name>", "arguments": {<arguments as JSON>}}</tool_call>';

export const TOOL_CALL_RULES: readonly string[] = [
  'Write one <tool_call> block per call; to call several tools, write several blocks.',
  'Use only the tool names listed above, spelled exactly.',
  'The content of a block is strict JSON: double-quoted keys and strings, no comments, no trailing commas.',
  '"arguments" is a JSON object that matches the tool\'s schema; use {} when the tool takes no arguments.',
  'After your calls, stop: the results will be sent back to you.',
  'If no tool is needed, answer in plain text, without any <tool_call> block.',
];

function describeTool(tool: PromptTool): string {
  const description = tool.description.trim() === '' ? '(no description)' : tool.description.trim();
  return [`## ${tool.name}`, description, `Arguments (JSON Schema): ${JSON.stringify(tool.inputSchema)}`].join('\n');
}

export function renderToolPrompt(tools: readonly PromptTool[], options: ToolPromptOptions = {}): string {
  const heading = options.heading ?? DEFAULT_TOOL_PROMPT_HEADING;
  const sections = [
    heading,
    'You can call the tools below. Each one lists the JSON Schema of its arguments.',
    ...tools.map(describeTool),
    '# How to call a tool',
    `To call a tool, reply with exactly this:\n${TOOL_CALL_FORMAT}`,
    TOOL_CALL_RULES.map((rule) => `- ${rule}`).join('\n'),
  ];
  return sections.join('\n\n');
}

export interface ToolCallSchemaOptions {
  /** Constrain each call's arguments to its tool's schema (needs anyOf support in the endpoint). Default false. */
  perToolArguments?: boolean;
}

/**
 * A JSON Schema for structured output (`response_format`):
 * `{"tool_calls": [{"name": <enum>, "arguments": {…}}], "answer": "…"}`.
 * An empty `tool_calls` list with an answer is a plain reply; extractToolCalls
 * reads this shape (and uses `answer` as the content).
 */
export function toolCallJsonSchema(tools: readonly PromptTool[], options: ToolCallSchemaOptions = {}): JsonSchema {
  const names = tools.map((tool) => tool.name);
  const generic: JsonSchema = {
    type: 'object',
    properties: { name: { type: 'string', enum: names }, arguments: { type: 'object' } },
    required: ['name', 'arguments'],
    additionalProperties: false,
  };
  const perTool: JsonSchema[] = tools.map((tool) => ({
    type: 'object',
    properties: { name: { type: 'string', const: tool.name }, arguments: tool.inputSchema },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return {
    type: 'object',
    properties: {
      tool_calls: {
        type: 'array',
        items: options.perToolArguments === true && perTool.length > 0 ? { anyOf: perTool } : generic,
      },
      answer: { type: 'string', description: 'Your reply in plain text when no tool is needed.' },
    },
    required: ['tool_calls'],
    additionalProperties: false,
  };
}
