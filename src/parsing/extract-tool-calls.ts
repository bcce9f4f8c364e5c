import { commitOutcome, createAccumulator } from './accumulator.ts';
import type { Accumulator } from './accumulator.ts';
import { buildContent } from './content.ts';
import { findDeepSeekCalls } from './envelopes/deepseek.ts';
import type { Envelope } from './envelopes/envelope.ts';
import { findFences } from './envelopes/fence.ts';
import type { Fence } from './envelopes/fence.ts';
import { findFunctionTags } from './envelopes/function-tag.ts';
import { findLlamaCalls } from './envelopes/llama.ts';
import { findMinimaxCalls } from './envelopes/minimax.ts';
import { findMistralCalls } from './envelopes/mistral.ts';
import { findThinkBlocks } from './envelopes/think.ts';
import { findToolCallTags } from './envelopes/tool-call-tag.ts';
import { findToolLines } from './envelopes/tool-line.ts';
import { exampleReason } from './example-context.ts';
import { createContext, DEFAULT_MAX_CALLS, DEFAULT_MAX_DIAGNOSTICS, emptyOutcome } from './extract-context.ts';
import type { ExtractContext } from './extract-context.ts';
import { fenceEnvelope } from './fence-envelope.ts';
import { scanProse } from './prose-json.ts';
import { resolvePayload } from './resolve-payload.ts';
import type { ExtractOptions, ExtractionResult, ParseDiagnostic, Span } from './types.ts';

/** Extraction with the spans it took out of the content (the stream filter needs them). */
export interface DetailedExtraction {
  result: ExtractionResult;
  removed: Span[];
}

const STRONG_FINDERS: readonly ((text: string) => Envelope[])[] = [
  findToolCallTags,
  findFunctionTags,
  findMistralCalls,
  findLlamaCalls,
  findDeepSeekCalls,
  findMinimaxCalls,
  findToolLines,
];

function inside(span: Span, outer: Span): boolean {
  return span.start >= outer.start && span.end <= outer.end;
}

/** Index of the last item starting at or before `pos` in a list sorted by start, or -1. */
function lastStartingBy(items: readonly { span: Span }[], pos: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((items[mid]?.span.start ?? Infinity) <= pos) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The fence whose content holds `span` (fences are sorted and disjoint). */
function containing(fences: readonly Fence[], span: Span): Fence | undefined {
  const fence = fences[lastStartingBy(fences, span.start)];
  return fence !== undefined && inside(span, fence.content) ? fence : undefined;
}

/** The envelopes overlapping `span` (envelopes are sorted and disjoint). */
function within(envelopes: readonly Envelope[], span: Span): Envelope[] {
  const out: Envelope[] = [];
  for (let i = Math.max(0, lastStartingBy(envelopes, span.start)); i < envelopes.length; i += 1) {
    const env = envelopes[i];
    if (env === undefined || env.span.start >= span.end) break;
    if (overlaps(env.span, span)) out.push(env);
  }
  return out;
}

function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Strong envelopes in text order, none overlapping (the earlier, then the longer, wins). */
function strongEnvelopes(text: string, think: readonly Span[]): Envelope[] {
  const all = STRONG_FINDERS.flatMap((find) => find(text)).filter((env) => !think.some((block) => overlaps(env.span, block)));
  all.sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end);
  const kept: Envelope[] = [];
  let end = -1;
  for (const env of all) {
    if (env.span.start >= end) {
      kept.push(env);
      end = env.span.end;
    }
  }
  return kept;
}

function processEnvelope(ctx: ExtractContext, acc: Accumulator, env: Envelope, fence: Fence | undefined): void {
  const outcome = emptyOutcome();
  for (const payload of env.payloads) resolvePayload(ctx, outcome, payload, env.strong);
  commitOutcome(acc, outcome, env.span, exampleReason(ctx.text, env.span.start, fence));
}

/** Sorted calls and capped diagnostics: a pathological input cannot flood the caller. */
function finish(ctx: ExtractContext, acc: Accumulator, budgetLeft: boolean): ExtractionResult {
  const calls = acc.calls.sort((a, b) => a.span.start - b.span.start);
  const diagnostics: ParseDiagnostic[] = acc.diagnostics.sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
  const limits: ParseDiagnostic[] = [];
  if (!budgetLeft) limits.push({ code: 'limit_reached', message: 'Stopped looking for calls: the text is too large or too irregular to scan completely.' });
  if (calls.length > DEFAULT_MAX_CALLS) {
    limits.push({ code: 'limit_reached', message: `Found ${calls.length} calls; kept the first ${DEFAULT_MAX_CALLS}.` });
    calls.length = DEFAULT_MAX_CALLS;
  }
  if (diagnostics.length + limits.length > DEFAULT_MAX_DIAGNOSTICS) {
    const dropped = diagnostics.length + limits.length - DEFAULT_MAX_DIAGNOSTICS + 1;
    diagnostics.length = DEFAULT_MAX_DIAGNOSTICS - limits.length - 1;
    limits.push({ code: 'limit_reached', message: `${dropped} more diagnostics were left out.` });
  }
  const content = acc.answer ?? buildContent(ctx.text, acc.removed);
  return { calls, content, diagnostics: [...diagnostics, ...limits] };
}

export function extractDetailed(text: string, options: ExtractOptions): DetailedExtraction {
  const ctx = createContext(text, options);
  const acc = createAccumulator();
  const think = findThinkBlocks(text);
  const strong = strongEnvelopes(text, think);
  const fences = findFences(text).filter((fence) => !think.some((block) => overlaps(fence.span, block)));
  const opaque: Span[] = [...think];
  const work: { start: number; run: () => void }[] = [];
  const wrappers: { fence: Fence; inner: Envelope[] }[] = [];
  for (const env of strong) {
    const around = containing(fences, env.span);
    work.push({ start: env.span.start, run: () => processEnvelope(ctx, acc, env, around) });
    opaque.push(env.span);
  }
  for (const fence of fences) {
    const inner = within(strong, fence.span);
    opaque.push(fence.span);
    if (inner.length > 0) wrappers.push({ fence, inner });
    else {
      const env = fenceEnvelope(text, fence);
      if (env !== undefined) work.push({ start: fence.span.start, run: () => processEnvelope(ctx, acc, env, fence) });
    }
  }
  work.sort((a, b) => a.start - b.start);
  for (const item of work) item.run();
  // A fence around tag calls (```xml <tool_call>…```) leaves the content with them.
  const removedStarts = new Set(acc.removed.map((span) => span.start));
  for (const { fence, inner } of wrappers) wrapperFence(acc, text, fence, inner, removedStarts);
  let budgetLeft = ctx.budget > 0;
  for (const gap of gaps(text.length, opaque)) {
    if (!budgetLeft) break;
    budgetLeft = scanProse(ctx, acc, gap);
  }
  return { result: finish(ctx, acc, budgetLeft && ctx.budget > 0), removed: acc.removed };
}

function wrapperFence(acc: Accumulator, text: string, fence: Fence, inner: readonly Envelope[], removed: ReadonlySet<number>): void {
  if (!inner.every((env) => removed.has(env.span.start))) return;
  const rest = gaps(fence.content.end, inner.map((env) => env.span), fence.content.start);
  if (rest.every((gap) => text.slice(gap.start, gap.end).trim() === '')) acc.removed.push(fence.span);
}

/** The parts of [from, length) not covered by `covered`. */
export function gaps(length: number, covered: readonly Span[], from = 0): Span[] {
  const sorted = [...covered].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  let pos = from;
  for (const span of sorted) {
    if (span.end <= pos) continue;
    if (span.start > pos) out.push({ start: pos, end: Math.min(span.start, length) });
    pos = Math.max(pos, span.end);
  }
  if (pos < length) out.push({ start: pos, end: length });
  return out;
}

/**
 * Finds the tool calls in a model's text reply, whatever the envelope (tags,
 * special tokens, fences, bare JSON, pythonic), and the text around them.
 * Never throws: unreadable or doubtful calls become diagnostics.
 */
export function extractToolCalls(text: string, options: ExtractOptions): ExtractionResult {
  try {
    return extractDetailed(text, options).result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { calls: [], content: text.trim(), diagnostics: [{ code: 'limit_reached', message: `Could not scan the text for calls: ${message}` }] };
  }
}
