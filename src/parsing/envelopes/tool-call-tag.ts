import { looksPythonic } from '../pythonic.ts';
import type { Span } from '../types.ts';
import type { Envelope, EnvelopeFamily, Payload } from './envelope.ts';
import { createFinders, DEFAULT_MAX_ENVELOPES, skipSpace, trimSpan } from './envelope.ts';
import type { Finders } from './envelope.ts';
import { parseFunctionTags } from './function-tag.ts';
import { scanJsonSequence } from './json-sequence.ts';
import { parseInvokes } from './minimax.ts';
import { parseGlmArguments } from './xml-params.ts';
import { BracketTracker } from '../scanner.ts';

/**
 * `<tool_call>…</tool_call>` and its relatives. The tag is Hermes/Qwen's; what
 * is inside tells the dialect: JSON (Hermes, Qwen2.5, Qwen3), `<function=…>`
 * (Qwen3-Coder), `name<arg_key>…` (GLM-4.5), `<invoke …>`, or pythonic.
 * A missing closer is common (stop tokens eat it) and accepted.
 */

const TAGS: readonly { open: string; closers: readonly string[] }[] = [
  { open: '<tool_call>', closers: ['</tool_call>'] },
  { open: '<tool_calls>', closers: ['</tool_calls>'] },
  // Phi-4-mini closes with <|/tool_call|>; Granite leaves it open.
  { open: '<|tool_call|>', closers: ['<|/tool_call|>', '</tool_call>'] },
];

const GLM_NAME_RE = /^[A-Za-z_](?:[\w.-]*\w)?$/;

interface Content {
  open: number;
  span: Span;
  closed: boolean;
  end: number;
}

/** Reads a tag's content; undefined when an unclosed tag holds nothing recognisable (prose). */
function readContent(text: string, content: Content, finders: Finders): Envelope | undefined {
  const body = trimSpan(text, content.span);
  const reachesTextEnd = !content.closed && content.span.end === text.length;
  const envelope = (family: EnvelopeFamily, payloads: Payload[], end = content.end): Envelope => ({
    family,
    span: { start: content.open, end },
    strong: true,
    payloads,
    unclosed: !content.closed,
  });
  const first = text.charAt(body.start);
  if (body.start === body.end) {
    if (!content.closed) return undefined;
    return envelope('tool_call_tag', [{ kind: 'malformed', span: body, message: 'The <tool_call> block is empty' }]);
  }
  if (first === '{' || first === '[' || text.startsWith('```', body.start)) {
    const jsonStart = first === '{' || first === '[' ? body.start : finders('{')(body.start);
    if (!content.closed && jsonStart >= 0 && jsonStart < body.end) {
      // Unclosed: the call ends where its JSON does; what follows is prose again.
      const sequence = scanJsonSequence(text, jsonStart, body.end);
      if (sequence.closed) return envelope('tool_call_tag', [{ kind: 'json', span: { start: jsonStart, end: sequence.end } }], sequence.end);
    }
    return envelope('tool_call_tag', [{ kind: 'json', span: body }]);
  }
  const fn = finders('<function=')(body.start);
  if (fn >= 0 && fn < body.end) {
    const calls = parseFunctionTags(text, body, finders);
    return envelope('qwen3_coder', calls.map((call) => call.payload));
  }
  if (text.startsWith('<invoke', body.start)) return envelope('minimax', parseInvokes(text, body, finders));
  const lineEnd = firstStop(text, body);
  const name = text.slice(body.start, lineEnd).trim();
  const afterName = skipSpace(text, lineEnd, body.end);
  if (GLM_NAME_RE.test(name) && text.charAt(afterName) === '{') {
    // GLM-4 (before 4.5): the name on one line, JSON arguments on the next.
    const region = scanJsonSequence(text, afterName, body.end);
    const end = !content.closed && region.closed ? region.end : content.end;
    const args = { kind: 'json' as const, span: { start: afterName, end: region.end }, closed: region.closed };
    return envelope('glm', [{ kind: 'named', name, args, span: { start: content.open, end }, reachesEnd: !region.closed && reachesTextEnd }], end);
  }
  // A lone name counts only in a closed block: "a <tool_call> tag." in prose is not a call to "tag".
  if (GLM_NAME_RE.test(name) && ((lineEnd === body.end && content.closed) || text.startsWith('<arg_key>', afterName))) {
    const parsed = parseGlmArguments(text, { start: lineEnd, end: body.end }, finders);
    const reachesEnd = reachesTextEnd && (parsed.reachesEnd || Object.keys(parsed.args).length === 0);
    const args = lineEnd === body.end ? { kind: 'none' as const } : { kind: 'object' as const, value: parsed.args };
    return envelope('glm', [{ kind: 'named', name, args, span: { start: content.open, end: content.end }, reachesEnd }]);
  }
  if (looksPythonic(text, body.start, body.end)) return envelope('pythonic', [{ kind: 'pythonic', span: body }]);
  if (!content.closed) return undefined;
  return envelope('tool_call_tag', [{ kind: 'malformed', span: body, message: 'The content of <tool_call> is not a JSON call like {"name": …, "arguments": {…}}' }]);
}

/** End of the first line of `body`, or the first `<` on it (GLM puts the name before the tags). */
function firstStop(text: string, body: Span): number {
  for (let i = body.start; i < body.end; i += 1) {
    const c = text.charAt(i);
    if (c === '\n' || c === '<') return i;
  }
  return body.end;
}

/** How many closers inside JSON strings (`"content": "…</tool_call>…"`) a call may step over. */
const MAX_QUOTED_CLOSERS = 4;

interface Boundary {
  /** Where the content ends. */
  at: number;
  /** Where the envelope ends (after the closer; at the next opener when there is none). */
  end: number;
}

export function findToolCallTags(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  for (const tag of TAGS) {
    const finders = createFinders(text);
    const findOpen = finders(tag.open);
    const findClosers = tag.closers.map((closer) => ({ closer, find: finders(closer) }));
    /** The first closer, or the next opener (the model opened a call without closing the last). */
    const boundary = (from: number): Boundary | undefined => {
      let best: Boundary | undefined;
      for (const { closer, find } of findClosers) {
        const close = find(from);
        if (close >= 0 && (best === undefined || close < best.at)) best = { at: close, end: close + closer.length };
      }
      const next = findOpen(from);
      return next >= 0 && (best === undefined || next < best.at) ? { at: next, end: next } : best;
    };
    let pos = 0;
    while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
      const open = findOpen(pos);
      if (open < 0) break;
      const contentStart = open + tag.open.length;
      const found = boundary(contentStart) && jsonAwareBoundary(text, contentStart, boundary);
      const content = found === undefined ? { at: text.length, end: text.length } : found;
      const envelope = readContent(text, { open, span: { start: contentStart, end: content.at }, closed: found !== undefined, end: content.end }, finders);
      if (envelope !== undefined) envelopes.push(envelope);
      pos = envelope === undefined ? contentStart : Math.max(envelope.span.end, contentStart);
    }
  }
  return envelopes;
}

/**
 * The content's end. When the content is JSON and the first boundary falls
 * inside one of its strings, the call goes on past it (a file body that
 * mentions `</tool_call>`), up to a few times.
 */
function jsonAwareBoundary(text: string, contentStart: number, boundary: (from: number) => Boundary | undefined): Boundary | undefined {
  let found = boundary(contentStart);
  if (found === undefined) return undefined;
  const jsonStart = skipSpace(text, contentStart, found.at);
  const first = text.charAt(jsonStart);
  if (first !== '{' && first !== '[') return found;
  const tracker = new BracketTracker();
  let fed = jsonStart;
  for (let skipped = 0; skipped <= MAX_QUOTED_CLOSERS; skipped += 1) {
    if (tracker.feed(text, fed, found.at) >= 0 || !tracker.inString) return found;
    const later = boundary(found.at + 1);
    if (later === undefined) return found;
    fed = found.at;
    found = later;
  }
  return found;
}
