import { isJsonObject } from '../core/index.ts';
import {
  extractFromMessage,
  type AssistantMessageInput,
  type ExtractionResult,
  type NativeToolCall,
  type ToolRef,
} from '../parsing/index.ts';
import type { CallFormat } from '../parsing/formats/call-format.ts';

export type { AssistantMessageInput, ExtractionResult, NativeToolCall, ToolRef };

/**
 * Tool references from a tools file or a corpus line: names, tool specs
 * (`toolgate tools --json`: `{name, description?, inputSchema?}`, or OpenAI's
 * `parameters`) or `{name, hasRequiredArgs}`. Undefined when the value is not such a list.
 */
export function toolRefsFrom(value: unknown): ToolRef[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const refs: ToolRef[] = [];
  for (const item of value) {
    if (typeof item === 'string') refs.push({ name: item });
    else if (isJsonObject(item) && typeof item['name'] === 'string') {
      const schema = item['inputSchema'] ?? item['parameters'];
      if (schema !== undefined && !isJsonObject(schema)) return undefined;
      const ref: ToolRef = { name: item['name'] };
      if (typeof item['hasRequiredArgs'] === 'boolean') ref.hasRequiredArgs = item['hasRequiredArgs'];
      if (typeof item['description'] === 'string') ref.description = item['description'];
      if (schema !== undefined) ref.inputSchema = schema;
      refs.push(ref);
    } else return undefined;
  }
  return refs;
}

/** Native tool calls from a corpus line: `[{"id"?, "name", "arguments"}]`; a string saying what is wrong otherwise. */
export function nativeCallsFrom(value: unknown): NativeToolCall[] | string {
  if (!Array.isArray(value)) return '"toolCalls" must be a list of {"name": "...", "arguments": "..."}';
  const calls: NativeToolCall[] = [];
  for (const [i, item] of value.entries()) {
    if (!isJsonObject(item) || typeof item['name'] !== 'string')
      return `toolCalls[${i}] must be an object with a "name" string`;
    const args = item['arguments'] ?? '';
    if (typeof args !== 'string')
      return (
        `toolCalls[${i}].arguments must be the raw arguments string (JSON text, as ` +
        `the model API sends it), not ${Array.isArray(args) ? 'an array' : typeof args}`
      );
    if (item['id'] !== undefined && typeof item['id'] !== 'string') return `toolCalls[${i}].id must be a string`;
    calls.push({ name: item['name'], arguments: args, ...(typeof item['id'] === 'string' ? { id: item['id'] } : {}) });
  }
  return calls;
}

/** The parser, for the `toolgate parse` command and library users: a whole assistant message in. */
export function parseModelMessage(message: AssistantMessageInput): ExtractionResult {
  return extractFromMessage(message);
}

/** The parser on text alone. */
export function parseModelText(
  text: string,
  options: { tools: readonly ToolRef[]; truncated?: boolean; formats?: readonly CallFormat[] },
): ExtractionResult {
  return extractFromMessage({
    text,
    tools: options.tools,
    ...(options.truncated === true ? { truncated: true } : {}),
    ...(options.formats === undefined || options.formats.length === 0 ? {} : { formats: options.formats }),
  });
}
