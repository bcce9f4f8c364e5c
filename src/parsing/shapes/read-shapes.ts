import { commitOutcome } from '../accumulator.ts';
import type { Accumulator } from '../accumulator.ts';
import { skipSpace } from '../envelopes/envelope.ts';
import { LEAKED_SENTINELS } from '../envelopes/xml-families.ts';
import { exampleReason } from '../example-context.ts';
import { charge, emptyOutcome, excerpt } from '../extract-context.ts';
import type { ExtractContext, Outcome } from '../extract-context.ts';
import { resolveIntent } from '../resolve-intent.ts';
import { overlapsAny } from '../spans.ts';
import { cleanToolName } from '../tool-names.ts';
import type { RepairKind, Span } from '../types.ts';
import { readStructure } from './shape-arguments.ts';
import type { Shape } from './shape-arguments.ts';
import { skeletonTokenEnd } from './skeleton-tokens.ts';
import { readToolTag } from './tool-tag.ts';

/**
 * Calls written in no family's syntax, found from the declared tools' names
 * (docs/parsing.md, "Shapes without a family"): a name followed by its
 * arguments in any grammar (`get_weather {"city": "Paris"}`), a transcript
 * line (`Action: get_weather` + `Action Input: {…}`), a family's call with
 * its special tokens stripped (`functions.get_weather:0 {…}`), a tag named
 * after the tool (tool-tag.ts). A shape is a call only where a call stands:
 * at the start of its line (after at most a short label), its arguments
 * ending the line. The same thing inside a sentence is a mention, recorded
 * as ignored_example; a structure that cannot be read after a name in call
 * position is a failed call, reported so the model can be told.
 */

/** A run of characters a tool name may hold (dotted, namespaced, with Kimi's `:N` index). */
export const NAME_RUN_RE = /[A-Za-z_][\w.\-/]*(?::\d+)?/g;
/** Names looked at per text: past this, a text is a flood, not a reply. */
const MAX_NAME_HITS = 512;
/** A label ending in `:` or `=` (`Action:`, `Tool:`, `Function call:`, `assistant to=`). */
const LABEL_RE = /^[A-Za-z][\w-]*(?:[ \t]+[\w-]+){0,3}[ \t]*[:=]$/;
/** A verb that says the line is the call (`Calling get_weather with {…}`). */
/**
 * Verbs that may introduce a call on its line (`Calling get_weather with {…}`); the stream filter waits on them too.
 */
export const CALL_VERBS = [
  'calling',
  'call',
  'invoking',
  'invoke',
  'using',
  'use',
  'running',
  'run',
  'executing',
  'execute',
] as const;
const VERB_RE = new RegExp(
  `^(?:${CALL_VERBS.join('|')})(?:[ \\t]+(?:the|a))?(?:[ \\t]+(?:tool|function))?[ \\t]*:?$`,
  'i',
);
/** What a detokenised family leaves before the name besides its tokens (DeepSeek's `function<｜tool▁sep｜>`). */
const SKELETON_WORD_RE = /^(?:functions?|tool)$/;
/** Words between the name and its arguments: `with`, `using`, Harmony's constraint `json`. */
const CONNECTOR_RE = /(?:with|using|json)(?=[ \t\n{(<])/y;
/** A label line before the arguments (`Action Input:`, `Arguments:`, `Args:`). */
const ARGS_LABEL_RE = /[A-Za-z][\w-]*(?:[ \t]+[\w-]+){0,2}[ \t]*:[ \t]*/y;

/** Longest text before a name on its line that can still be a label: longer is a sentence. */
const MAX_PREFIX = 80;

/** Start of the line holding `pos`, or -1 when it starts more than MAX_PREFIX characters before it. */
function lineStartOf(text: string, pos: number): number {
  const floor = Math.max(0, pos - MAX_PREFIX - 1);
  for (let i = pos - 1; i >= floor; i -= 1) if (text.charAt(i) === '\n') return i + 1;
  return floor === 0 ? 0 : -1;
}

/** Skips skeleton tokens (and the blanks around them) from `pos`; counts them. */
function skipSkeleton(text: string, pos: number, limit: number): { end: number; count: number } {
  let end = pos;
  let count = 0;
  for (let guard = 0; guard < 8; guard += 1) {
    const at = skipInline(text, end, limit);
    const tokenEnd = skeletonTokenEnd(text, at, limit);
    if (tokenEnd < 0) break;
    end = tokenEnd;
    count += 1;
  }
  return { end, count };
}

function skipInline(text: string, pos: number, limit: number = text.length): number {
  let i = pos;
  while (i < limit && (text.charAt(i) === ' ' || text.charAt(i) === '\t')) i += 1;
  return i;
}

/** The line before the name: its start when it is a label, a call verb or skeleton tokens; undefined for prose. */
export function prefixStart(
  text: string,
  lineStart: number,
  nameStart: number,
): { start: number; label: boolean; skeleton: number } | undefined {
  let pos = skipInline(text, lineStart, nameStart);
  const start = pos;
  let skeleton = 0;
  const words: string[] = [];
  while (pos < nameStart) {
    const tokenEnd = skeletonTokenEnd(text, pos, nameStart);
    if (tokenEnd > pos) {
      skeleton += 1;
      pos = skipInline(text, tokenEnd, nameStart);
      continue;
    }
    let end = pos;
    while (end < nameStart && !/[ \t<[|｜]/.test(text.charAt(end))) end += 1;
    if (end === pos) end += 1;
    words.push(text.slice(pos, end));
    pos = skipInline(text, end, nameStart);
  }
  const rest = words.join(' ');
  if (rest === '') return { start, label: false, skeleton };
  if (skeleton > 0 && words.every((w) => SKELETON_WORD_RE.test(w))) return { start, label: false, skeleton };
  if (LABEL_RE.test(rest) || VERB_RE.test(rest)) return { start, label: true, skeleton };
  return undefined;
}

/** Past trailing skeleton tokens and leaked sentinels: where the line of a call ends, or -1 when text follows on it. */
function lineEndAfter(text: string, pos: number): number {
  let end = skipSkeleton(text, pos, text.length).end;
  for (let guard = 0; guard < 4; guard += 1) {
    const at = skipInline(text, end);
    const sentinel = LEAKED_SENTINELS.find((s) => text.startsWith(s, at));
    if (sentinel === undefined) break;
    end = at + sentinel.length;
  }
  const at = skipInline(text, end);
  return at >= text.length || text.charAt(at) === '\n' || text.charAt(at) === '\r' ? end : -1;
}

interface Opening {
  /** Where the structure starts. */
  at: number;
  /** Only blanks or a `:` between the name and the structure: the name is followed by its opener. */
  immediate: boolean;
  skeleton: number;
  /** A label line (`Action Input:`) or a word (`with`) stood between: a transcript. */
  label: boolean;
}

/** From the end of the name to the start of its argument structure. */
function openingAfter(text: string, nameEnd: number): Opening {
  let pos = nameEnd;
  const skipped = skipSkeleton(text, pos, text.length);
  pos = skipInline(text, skipped.end);
  let immediate = skipped.count === 0;
  let label = false;
  if (text.charAt(pos) === ':') pos = skipInline(text, pos + 1);
  CONNECTOR_RE.lastIndex = pos;
  const connector = CONNECTOR_RE.exec(text);
  if (connector !== null) {
    pos = skipInline(text, pos + connector[0].length);
    immediate = false;
    label = true;
  }
  const more = skipSkeleton(text, pos, text.length);
  pos = skipInline(text, more.end);
  if (text.charAt(pos) === '\r') pos += 1;
  if (text.charAt(pos) === '\n') {
    // One line break, then the arguments, or a label line and the arguments (`Action Input: {…}`).
    pos = skipInline(text, pos + 1);
    immediate = false;
    ARGS_LABEL_RE.lastIndex = pos;
    const argsLabel = ARGS_LABEL_RE.exec(text);
    if (argsLabel !== null && !text.startsWith('<', pos)) {
      pos += argsLabel[0].length;
      label = true;
    }
  }
  return { at: pos, immediate, skeleton: skipped.count + more.count, label };
}

/** A declared name at `run`: the shape it starts, if any. */
function shapeAt(
  ctx: ExtractContext,
  run: { start: number; end: number; name: string; repairs: RepairKind[] },
): Shape | undefined {
  const text = ctx.text;
  const opening = openingAfter(text, run.end);
  const c = text.charAt(opening.at);
  // `get_weather (the tool)`: only a parenthesis right after the name opens arguments.
  if (c === '(' && opening.at !== run.end) return undefined;
  const reading = readStructure(text, opening.at, { truncated: ctx.truncated });
  if (reading === undefined) return undefined;
  const lineStart = lineStartOf(text, run.start);
  const prefix = lineStart < 0 ? undefined : prefixStart(text, lineStart, run.start);
  // A call ends its line; a structure cut by the end of the text ends it too.
  const tail = reading.status === 'failed' && reading.cut ? text.length : lineEndAfter(text, reading.end);
  // `name(key=value)` keeps its own rule (a call only when it is the whole reply, read before this pass).
  const pythonic = c === '(' && text.charAt(skipSpace(text, opening.at + 1)) !== '{';
  const callPosition = prefix !== undefined && tail >= 0 && !pythonic;
  const start = callPosition && prefix !== undefined ? prefix.start : run.start;
  const end = Math.max(tail, reading.end);
  const skeleton = opening.skeleton + (prefix?.skeleton ?? 0) > 0 || run.repairs.includes('stripped_name_index');
  const kind: RepairKind = skeleton
    ? 'detokenized_skeleton'
    : prefix?.label === true || opening.label
      ? 'transcript_call'
      : 'declared_name_call';
  if (!callPosition && !opening.immediate) return undefined;
  return { kind, span: { start, end }, name: run.name, nameRepairs: run.repairs, reading, callPosition };
}

function failureOf(shape: Shape, outcome: Outcome, ctx: ExtractContext): void {
  const { reading, name, span } = shape;
  if (reading.status !== 'failed') return;
  if (reading.cut) {
    const why = ctx.truncated ? 'the reply hit its length limit' : 'the reply ended in the middle of it';
    outcome.diagnostics.push({
      code: 'truncated',
      message: `The call to "${name}" was cut off before its arguments were complete (${why}).`,
      span,
      position: reading.position,
      name,
    });
    return;
  }
  const code = reading.expected.startsWith('a JSON') ? 'invalid_json' : 'malformed_call';
  outcome.diagnostics.push({
    code,
    message:
      `The call to "${name}" at position ${reading.position} cannot be read: ${reading.message}. ` +
      `Expected ${reading.expected} right after the name. Near: ${excerpt(ctx.text, reading.position)}`,
    span,
    position: reading.position,
    name,
  });
}

function commitShape(ctx: ExtractContext, acc: Accumulator, shape: Shape): void {
  const outcome = emptyOutcome();
  const scope = { ctx, outcome };
  if (!shape.callPosition) {
    acc.diagnostics.push({
      code: 'ignored_example',
      message:
        `Ignored "${shape.name}" followed by arguments inside a sentence (position ` +
        `${shape.span.start}): a call stands on its own line, so this reads as a mention.`,
      span: shape.span,
      position: shape.span.start,
      name: shape.name,
    });
    return;
  }
  if (shape.reading.status === 'read') {
    resolveIntent(
      scope,
      { name: shape.name, args: shape.reading.args, explicit: true, echo: false },
      { strong: true, span: shape.span, repairs: [shape.kind, ...shape.nameRepairs, ...shape.reading.repairs] },
    );
  } else failureOf(shape, outcome, ctx);
  commitOutcome(acc, outcome, { span: shape.span, exampleReason: exampleReason(ctx.text, shape.span.start) });
}

/**
 * Reads the shapes of the declared tools' names outside `blocked` (reasoning,
 * envelopes, fences, and whatever was already read). False when the work
 * budget ran out.
 */
export function readShapes(
  ctx: ExtractContext,
  acc: Accumulator,
  blocked: { names: readonly Span[]; shapes: readonly Span[] },
): boolean {
  if (ctx.tools.size === 0) return true;
  const text = ctx.text;
  const taken: Span[] = [
    ...blocked.shapes,
    ...acc.removed,
    ...acc.diagnostics.flatMap((d) => (d.span === undefined ? [] : [d.span])),
  ];
  // overlapsAny wants disjoint spans: diagnostics overlap the calls they are about.
  const sorted = (): Span[] => {
    const out: Span[] = [];
    for (const span of [...taken].sort((a, b) => a.start - b.start)) {
      const last = out.at(-1);
      if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
      else out.push({ ...span });
    }
    return out;
  };
  let spans = sorted();
  taken.push(...blocked.names);
  let nameSpans = sorted();
  taken.length -= blocked.names.length;
  let hits = 0;
  let resume = 0;
  for (const m of text.matchAll(NAME_RUN_RE)) {
    if (m.index < resume) continue;
    const raw = m[0].replace(/[.\-/]+$/, '');
    const cleaned = cleanToolName(raw, (candidate) => ctx.tools.has(candidate));
    if (!ctx.tools.has(cleaned.name)) continue;
    hits += 1;
    if (hits > MAX_NAME_HITS || !charge(ctx, 64)) return hits <= MAX_NAME_HITS;
    const run = { start: m.index, end: m.index + raw.length, name: cleaned.name, repairs: cleaned.repairs };
    if (overlapsAny(nameSpans, run) || overlapsAny(spans, run)) continue;
    const shape =
      text.charAt(run.start - 1) === '<' ? readToolTag(ctx, { ...run, start: run.start - 1 }) : shapeAt(ctx, run);
    if (shape === undefined || overlapsAny(spans, shape.span)) continue;
    charge(ctx, shape.span.end - shape.span.start);
    commitShape(ctx, acc, shape);
    taken.push(shape.span);
    spans = sorted();
    nameSpans = [...nameSpans, shape.span].sort((a, b) => a.start - b.start);
    resume = shape.span.end;
  }
  return true;
}
