import type { ExtractOptions, ExtractedCall, ParseDiagnostic, Span, ToolRef } from './types.ts';

/** Pathological input stops here: every scan and parse is charged to a budget this many times the text length. */
export const DEFAULT_WORK_FACTOR = 8;
/** Work allowed regardless of text length (short texts are never starved). */
export const DEFAULT_MIN_WORK = 1 << 16;
/** No model turn makes more calls than this; more is garbage or an attack. */
export const DEFAULT_MAX_CALLS = 128;
export const DEFAULT_MAX_DIAGNOSTICS = 50;

/** Shared state of one extraction. */
export interface ExtractContext {
  text: string;
  tools: Map<string, ToolRef>;
  truncated: boolean;
  /** Work units left (characters scanned or parsed). */
  budget: number;
}

/** What one envelope or JSON region produced, before it is committed. */
export interface Outcome {
  calls: ExtractedCall[];
  diagnostics: ParseDiagnostic[];
  /** Answer text that came with the calls (structured output, seed 000's final_answer). */
  answer?: string;
}

/** What the resolvers work on: the extraction and the outcome they fill. */
export interface Scope {
  ctx: ExtractContext;
  outcome: Outcome;
}

/** The tools on offer by name; `hasRequiredArgs` read from a ref's schema when it does not say. */
export function toolMap(tools: ExtractOptions['tools']): Map<string, ToolRef> {
  const map = new Map<string, ToolRef>();
  for (const tool of tools) {
    const ref = typeof tool === 'string' ? { name: tool } : withRequiredFromSchema(tool);
    map.set(ref.name, ref);
  }
  return map;
}

export function createContext(text: string, options: ExtractOptions): ExtractContext {
  return {
    text,
    tools: toolMap(options.tools),
    truncated: options.truncated === true,
    budget: DEFAULT_WORK_FACTOR * text.length + DEFAULT_MIN_WORK,
  };
}

/** `hasRequiredArgs` read from the schema's `required` list when the ref does not say. */
function withRequiredFromSchema(ref: ToolRef): ToolRef {
  if (ref.hasRequiredArgs !== undefined || ref.inputSchema === undefined) return ref;
  const required = ref.inputSchema['required'];
  return { ...ref, hasRequiredArgs: Array.isArray(required) && required.length > 0 };
}

export function charge(ctx: ExtractContext, work: number): boolean {
  ctx.budget -= Math.max(1, work);
  return ctx.budget > 0;
}

export function emptyOutcome(): Outcome {
  return { calls: [], diagnostics: [] };
}

export function slice(ctx: ExtractContext, span: Span): string {
  return ctx.text.slice(span.start, span.end);
}

/** A short quote of the text around `position`, for messages. */
export function excerpt(text: string, position: number, radius = 30): string {
  const start = Math.max(0, position - radius);
  const end = Math.min(text.length, position + radius);
  const quoted = text.slice(start, end).replace(/\s+/g, ' ');
  return `${start > 0 ? '…' : ''}${quoted}${end < text.length ? '…' : ''}`;
}
