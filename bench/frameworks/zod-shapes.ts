// The workload's tools as zod objects: how each framework (and toolgate's
// defineTool) is usually given a tool's arguments.
// zod is passed in, never imported here: the toolgate runners use toolgate's copy
// (toolgate-package.ts, loadToolgateZod), the frameworks the bench package's.
import type { z } from 'zod';
import type { FieldType, ToolShape } from './workload.ts';

/** zod's namespace: the bench package's own copy, or the one toolgate resolves (toolgate-package.ts). */
export type Zod = typeof z;

function field(zod: Zod, type: FieldType): z.ZodType {
  switch (type) {
    case 'string':
      return zod.string();
    case 'number':
      return zod.number();
    case 'integer':
      return zod.number().int();
    case 'boolean':
      return zod.boolean();
  }
}

export function zodObjectOf(shape: ToolShape, zod: Zod): z.ZodObject<Record<string, z.ZodType>> {
  const fields: Record<string, z.ZodType> = {};
  for (const [name, type] of Object.entries(shape.fields)) fields[name] = field(zod, type);
  return zod.object(fields);
}

/** The lookup key from parsed arguments, whatever object type a framework hands over. */
export function keyOf(args: unknown): string {
  return String((args as { key?: unknown }).key);
}
