import { describeError } from '../core/describe-error.ts';
import { commitOutcome, createAccumulator } from './accumulator.ts';
import type { Accumulator } from './accumulator.ts';
import { buildContent } from './content.ts';
import { DEFAULT_MAX_ENVELOPES, trimSpan } from './envelopes/envelope.ts';
import type { Envelope } from './envelopes/envelope.ts';
import { DEFAULT_MAX_FENCES, findFences } from './envelopes/fence.ts';
import type { Fence } from './envelopes/fence.ts';
import { findThinkBlocks } from './envelopes/think.ts';
import { TOKEN_FINDERS } from './envelopes/token-finders.ts';
import { findToolLines } from './envelopes/tool-line.ts';
import { XML_FINDERS } from './envelopes/xml-finders.ts';
import { exampleReason } from './example-context.ts';
import type { CallFormat } from './formats/call-format.ts';
import { findFormatCalls } from './formats/find-format-calls.ts';
import { charge, createContext, DEFAULT_MAX_CALLS, DEFAULT_MAX_DIAGNOSTICS, emptyOutcome } from './extract-context.ts';
import type { ExtractContext, Outcome } from './extract-context.ts';
import { fenceEnvelope } from './fence-envelope.ts';
import { looksPythonic, parsePythonicCalls } from './pythonic.ts';
import { scanProse } from './prose-json.ts';
import { readShapes } from './shapes/read-shapes.ts';
import { findSpecialEnvelopes } from './shapes/special-envelope.ts';
import { resolvePayload, resolvePythonic } from './resolve-payload.ts';
import { gaps, inside, lastStartingBy, overlapping, overlaps, overlapsAny } from './spans.ts';
import { CALL_FAILURE_CODES } from './types.ts';
import type { ExtractOptions, ExtractionResult, ParseDiagnostic, RepairKind, Span } from './types.ts';

/** Extraction with the spans it took out of the content (the stream filter needs them). */
export interface DetailedExtraction {
  result: ExtractionResult;
  removed: Span[];
}

const STRONG_FINDERS: readonly ((text: string) => Envelope[])[] = [...XML_FINDERS, ...TOKEN_FINDERS, findToolLines];

/**
 * Strong envelopes in text order, none overlapping (the earlier, then the
 * longer, wins), none inside reasoning. `capped` when a finder hit its cap.
 * The formats given in the options are read first: a built-in envelope that
 * overlaps one of theirs is dropped.
 */
function strongEnvelopes(
  text: string,
  think: readonly Span[],
  options: { formats: readonly CallFormat[] | undefined; tools: ExtractContext['tools'] },
): { envelopes: Envelope[]; capped: boolean } {
  const formats = options.formats ?? [];
  let capped = false;
  const all: Envelope[] = [];
  const fromFormats: Span[] = [];
  for (const format of formats) {
    const found = findFormatCalls(text, format);
    if (found.length >= DEFAULT_MAX_ENVELOPES) capped = true;
    for (const env of found) {
      // An earlier format's envelope wins over a later one's (few formats, few envelopes: a plain scan).
      if (overlapsAny(think, env.span) || fromFormats.some((span) => overlaps(span, env.span))) continue;
      all.push(env);
      fromFormats.push(env.span);
    }
  }
  fromFormats.sort((a, b) => a.start - b.start);
  for (const find of STRONG_FINDERS) {
    const found = find(text);
    if (found.length >= DEFAULT_MAX_ENVELOPES) capped = true;
    for (const env of found) if (!overlapsAny(think, env.span) && !overlapsAny(fromFormats, env.span)) all.push(env);
  }
  // Markers no family lists come last: whatever a known envelope reads is never read again as unknown.
  const known = all.map((env) => env.span).sort((a, b) => a.start - b.start);
  for (const env of findSpecialEnvelopes(text, options.tools))
    if (!overlapsAny(think, env.span) && !overlapsAny(known, env.span)) all.push(env);
  all.sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end);
  const kept: Envelope[] = [];
  let end = -1;
  for (const env of all) {
    if (env.span.start >= end) {
      kept.push(env);
      end = env.span.end;
    }
  }
  return { envelopes: kept, capped };
}

/** The fence whose content holds `span`. */
function fenceAround(fences: readonly Fence[], span: Span): Fence | undefined {
  const fence = fences[lastStartingBy(fences.length, (i) => fences[i]?.span.start ?? Infinity, span.start)];
  return fence !== undefined && inside(span, fence.content) ? fence : undefined;
}

/** The envelope's own repairs (a missing opener, a broken closer…) go on every call it yielded. */
function recordEnvelopeRepairs(outcome: Outcome, repairs: readonly RepairKind[]): void {
  for (const call of outcome.calls) {
    const existing = outcome.diagnostics.find(
      (d) =>
        d.code === 'repaired' &&
        d.name === call.name &&
        d.span?.start === call.span.start &&
        d.span.end === call.span.end,
    );
    if (existing !== undefined) {
      const merged = [...new Set([...repairs, ...(existing.repairs ?? [])])];
      existing.repairs = merged;
      existing.message = `Repaired the call to "${call.name}": ${merged.join(', ')}.`;
    } else {
      const list = [...repairs];
      outcome.diagnostics.push({
        code: 'repaired',
        message: `Repaired the call to "${call.name}": ${list.join(', ')}.`,
        span: call.span,
        name: call.name,
        repairs: list,
      });
    }
  }
}

function processEnvelope(
  ctx: ExtractContext,
  acc: Accumulator,
  where: { env: Envelope; fence: Fence | undefined },
): void {
  const { env, fence } = where;
  const outcome = emptyOutcome();
  for (const payload of env.payloads) resolvePayload({ ctx, outcome }, payload, env.strong);
  if (env.repairs !== undefined && env.repairs.length > 0) recordEnvelopeRepairs(outcome, env.repairs);
  // An empty envelope's diagnostic points at the envelope, not at the nothing inside it.
  for (const d of outcome.diagnostics) if (d.span !== undefined && d.span.start === d.span.end) d.span = env.span;
  const [only] = outcome.calls;
  if (only !== undefined && outcome.calls.length === 1) {
    // One call: its raw text is the whole envelope (tags, fence and all); its repairs point there too.
    for (const d of outcome.diagnostics)
      if (d.code === 'repaired' && d.span?.start === only.span.start && d.span.end === only.span.end) d.span = env.span;
    only.span = env.span;
    only.raw = ctx.text.slice(env.span.start, env.span.end);
  }
  const committed = commitOutcome(acc, outcome, {
    span: env.span,
    exampleReason: exampleReason(ctx.text, env.span.start, fence),
  });
  // A reply that is only a fenced answer object (`{"action": "Final Answer", …}`): its answer is the content.
  if (
    outcome.answer !== undefined &&
    committed !== 'example' &&
    ctx.text.slice(0, env.span.start).trim() === '' &&
    ctx.text.slice(env.span.end).trim() === ''
  ) {
    acc.answer = outcome.answer;
    acc.removed.push(env.span);
  }
}

/** A fence around tag calls (```xml <tool_call>…```) leaves the content with them. */
function removeWrapperFence(
  acc: Accumulator,
  text: string,
  wrapper: { fence: Fence; inner: readonly Envelope[]; removed: ReadonlySet<number> },
): void {
  const { fence, inner, removed } = wrapper;
  if (!inner.every((env) => removed.has(env.span.start))) return;
  const rest = gaps(
    fence.content.end,
    inner.map((env) => env.span),
    fence.content.start,
  );
  if (rest.every((gap) => text.slice(gap.start, gap.end).trim() === '')) acc.removed.push(fence.span);
}

/**
 * A reply that is nothing but `name(key=value)` calls (no brackets, no
 * envelope): calls only when the calls fill the whole reply and every one
 * names a declared tool. Anything less is prose that mentions a function.
 */
function readBareCalls(ctx: ExtractContext, acc: Accumulator): void {
  const body = trimSpan(ctx.text, { start: 0, end: ctx.text.length });
  if (body.start >= body.end || !looksPythonic(ctx.text, body.start, body.end) || !charge(ctx, body.end - body.start))
    return;
  const parsed = parsePythonicCalls(ctx.text, body.start, body.end);
  if (!parsed.ok || parsed.calls.length === 0 || !parsed.calls.every((call) => ctx.tools.has(call.name))) return;
  const outcome = emptyOutcome();
  resolvePythonic({ ctx, outcome }, body);
  commitOutcome(acc, outcome, { span: body, exampleReason: undefined });
}

/** Past the caps there is nothing useful left to find: stop early instead of reading a flood. */
function full(acc: Accumulator): boolean {
  return acc.calls.length > DEFAULT_MAX_CALLS || acc.diagnostics.length > DEFAULT_MAX_DIAGNOSTICS;
}

/** Sorted calls and capped diagnostics: a pathological input cannot flood the caller. */
function finish(ctx: ExtractContext, acc: Accumulator, limits: ParseDiagnostic[]): ExtractionResult {
  const calls = acc.calls.sort((a, b) => a.span.start - b.span.start);
  const diagnostics = acc.diagnostics.sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
  if (calls.length > DEFAULT_MAX_CALLS) {
    limits.push({
      code: 'limit_reached',
      message: `Found more than ${DEFAULT_MAX_CALLS} calls; kept the first ${DEFAULT_MAX_CALLS}.`,
    });
    calls.length = DEFAULT_MAX_CALLS;
  }
  if (diagnostics.length + limits.length > DEFAULT_MAX_DIAGNOSTICS) {
    diagnostics.length = Math.max(0, DEFAULT_MAX_DIAGNOSTICS - limits.length - 1);
    limits.push({
      code: 'limit_reached',
      message: `More than ${DEFAULT_MAX_DIAGNOSTICS} diagnostics; kept the first ones.`,
    });
  }
  const content = acc.answer ?? buildContent(ctx.text, acc.removed);
  return { calls, content, diagnostics: [...diagnostics, ...limits] };
}

/**
 * With formats given (configured, or derived from the model's chat template),
 * the reply is also read with the built-in lexicon alone, and the better
 * reading is kept: fewer failed calls, then more calls, the formats' reading
 * on a tie. A format that describes the model less well than the lexicon (a
 * template that renders calls differently from what the model writes) can
 * then never make a reply read worse than without it.
 */
export function extractDetailed(text: string, options: ExtractOptions): DetailedExtraction {
  const withFormats = extractOnce(text, options);
  // No envelope of the formats was read: both readings are the same one.
  if (options.formats === undefined || options.formats.length === 0 || !withFormats.usedFormats)
    return detailed(withFormats);
  const { formats: _unused, ...lexiconOnly } = options;
  const lexicon = extractOnce(text, lexiconOnly);
  const failures = (e: DetailedExtraction): number =>
    e.result.diagnostics.filter((d) => CALL_FAILURE_CODES.includes(d.code)).length;
  const [a, b] = [failures(withFormats), failures(lexicon)];
  if (b < a || (b === a && lexicon.result.calls.length > withFormats.result.calls.length)) return detailed(lexicon);
  return detailed(withFormats);
}

function detailed(extraction: DetailedExtraction): DetailedExtraction {
  return { result: extraction.result, removed: extraction.removed };
}

/** `usedFormats`: an envelope of the formats in the options was read (not only the lexicon's). */
function extractOnce(text: string, options: ExtractOptions): DetailedExtraction & { usedFormats: boolean } {
  const ctx = createContext(text, options);
  const acc = createAccumulator();
  const limits: ParseDiagnostic[] = [];
  const think = findThinkBlocks(text);
  const { envelopes: strong, capped } = strongEnvelopes(text, think, { formats: options.formats, tools: ctx.tools });
  const allFences = findFences(text);
  const fences = allFences.filter((fence) => !overlapsAny(think, fence.span));
  // Text that is never read as prose JSON: reasoning, envelopes, fences, and whatever lies past a cap.
  const opaque: Span[] = [...think];
  const stops: number[] = [];
  if (capped) stops.push(strong.at(-1)?.span.end ?? 0);
  if (allFences.length >= DEFAULT_MAX_FENCES) stops.push(allFences.at(-1)?.span.end ?? 0);
  if (stops.length > 0) {
    opaque.push({ start: Math.min(...stops), end: text.length });
    limits.push({
      code: 'limit_reached',
      message: 'The text holds more call blocks or code fences than any reply should; read only the first ones.',
    });
  }
  const work: { start: number; run: () => void }[] = [];
  const wrappers: { fence: Fence; inner: Envelope[] }[] = [];
  for (const env of strong) {
    const around = fenceAround(fences, env.span);
    // `tool: name` is a line of plain text; inside a code block it is data (YAML, a config).
    if (env.family === 'tool_line' && around !== undefined) continue;
    work.push({ start: env.span.start, run: () => processEnvelope(ctx, acc, { env, fence: around }) });
    opaque.push(env.span);
  }
  for (const fence of fences) {
    const inner = overlapping(strong, fence.span).filter((env) => env.family !== 'tool_line');
    opaque.push(fence.span);
    if (inner.length > 0) wrappers.push({ fence, inner });
    else {
      const env = fenceEnvelope(text, fence);
      if (env !== undefined)
        work.push({ start: fence.span.start, run: () => processEnvelope(ctx, acc, { env, fence }) });
    }
  }
  work.sort((a, b) => a.start - b.start);
  for (const item of work) {
    if (full(acc)) break;
    item.run();
  }
  const removedStarts = new Set(acc.removed.map((span) => span.start));
  for (const { fence, inner } of wrappers) removeWrapperFence(acc, text, { fence, inner, removed: removedStarts });
  let budgetLeft = ctx.budget > 0;
  for (const gap of gaps(text.length, opaque)) {
    if (!budgetLeft || full(acc)) break;
    budgetLeft = scanProse(ctx, acc, gap);
  }
  if (budgetLeft && acc.calls.length === 0 && acc.diagnostics.length === 0) readBareCalls(ctx, acc);
  // Shapes without a family last: no name inside what was read above (or inside a fence) starts one,
  // though a fence may hold the arguments after a name (DeepSeek's detokenised skeleton).
  if (budgetLeft && !full(acc)) {
    const fenceSpans = new Set(fences.map((fence) => fence.span));
    budgetLeft = readShapes(ctx, acc, { names: opaque, shapes: opaque.filter((span) => !fenceSpans.has(span)) });
  }
  if (!budgetLeft || ctx.budget <= 0)
    limits.push({
      code: 'limit_reached',
      message: 'Stopped looking for calls: the text is too large or too irregular to scan completely.',
    });
  return {
    result: finish(ctx, acc, limits),
    removed: acc.removed,
    usedFormats: strong.some((env) => env.family === 'format'),
  };
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
    const message = describeError(error);
    return {
      calls: [],
      content: text.trim(),
      diagnostics: [{ code: 'limit_reached', message: `Could not scan the text for calls: ${message}` }],
    };
  }
}
