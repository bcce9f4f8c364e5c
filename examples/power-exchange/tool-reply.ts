import type { JsonObject } from '../../src/core/json.ts';

/**
 * A tool answer as this server builds it: the JSON-safe subset of MCP's
 * CallToolResult, so it can be stored under an idempotency key and replayed.
 */
export interface ToolReply {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
}

export function reply(text: string, structuredContent?: JsonObject): ToolReply {
  return structuredContent === undefined
    ? { content: [{ type: 'text', text }] }
    : { content: [{ type: 'text', text }], structuredContent };
}

/** A business refusal: the model reads `text`, a program reads `structuredContent.error`. */
export function errorReply(error: { code: string; message: string }): ToolReply {
  return {
    content: [{ type: 'text', text: error.message }],
    structuredContent: { error: { ...error } },
    isError: true,
  };
}
