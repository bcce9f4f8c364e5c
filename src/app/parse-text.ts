import { isJsonObject } from '../core/index.ts';
import { extractToolCalls, type ExtractionResult, type ToolRef } from '../parsing/index.ts';

export type { ExtractionResult, ToolRef };

/** Tool references from a tools file: names, tool specs (`toolgate tools --json`) or `{name, hasRequiredArgs}`. */
export function toolRefsFrom(value: unknown): ToolRef[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const refs: ToolRef[] = [];
  for (const item of value) {
    if (typeof item === 'string') refs.push({ name: item });
    else if (isJsonObject(item) && typeof item['name'] === 'string') {
      const schema = item['inputSchema'] ?? item['parameters'];
      const required = isJsonObject(schema) && Array.isArray(schema['required']) ? schema['required'].length > 0 : undefined;
      const explicit = typeof item['hasRequiredArgs'] === 'boolean' ? item['hasRequiredArgs'] : required;
      refs.push(explicit === undefined ? { name: item['name'] } : { name: item['name'], hasRequiredArgs: explicit });
    } else return undefined;
  }
  return refs;
}

/** The parser, for the `toolgate parse` command and library users. */
export function parseModelText(text: string, options: { tools: readonly ToolRef[]; truncated?: boolean }): ExtractionResult {
  return extractToolCalls(text, { tools: options.tools, ...(options.truncated === true ? { truncated: true } : {}) });
}
