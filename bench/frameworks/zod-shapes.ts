// The workload's tools as zod objects: how each framework (and toolgate's
// defineTool) is usually given a tool's arguments.
import { z } from 'zod';
import type { FieldType, ToolShape } from './workload.ts';

function field(type: FieldType): z.ZodType {
  switch (type) {
    case 'string':
      return z.string();
    case 'number':
      return z.number();
    case 'integer':
      return z.number().int();
    case 'boolean':
      return z.boolean();
  }
}

export function zodObjectOf(shape: ToolShape): z.ZodObject<Record<string, z.ZodType>> {
  const fields: Record<string, z.ZodType> = {};
  for (const [name, type] of Object.entries(shape.fields)) fields[name] = field(type);
  return z.object(fields);
}

/** The lookup key from parsed arguments, whatever object type a framework hands over. */
export function keyOf(args: unknown): string {
  return String((args as { key?: unknown }).key);
}
