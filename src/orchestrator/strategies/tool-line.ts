import type { ModelToolDefinition } from '../../core/index.ts';

/** A tool as a prompt lists it: its name, whether it changes state, and what it does. */
export function toolLine(tool: ModelToolDefinition, writeTools: ReadonlySet<string>): string {
  return `${tool.name}${writeTools.has(tool.name) ? ' (changes state)' : ''}: ${tool.description ?? ''}`;
}
