import { looksPythonic } from '../pythonic.ts';
import { BracketTracker, indexOfOpener } from '../scanner.ts';
import type { RepairKind, Span } from '../types.ts';
import type { Payload } from './envelope.ts';
import { skipSpace, trimSpan } from './envelope.ts';
import { scanJsonSequence } from './json-sequence.ts';
import { endsWithSentinel, isCallOpener, MAX_QUOTED_CLOSERS } from './xml-calls.ts';
import { bodyKind, chooseFamily, envelope, GLM_NAME_RE, mergeCalls, readCalls } from './xml-envelope.ts';
import type { Read, Scope } from './xml-envelope.ts';
import { GLM_KEY, GLM_VALUE, localName, XML_FAMILIES } from './xml-families.ts';
import type { XmlFamily } from './xml-families.ts';
import { tagIndexAt } from './xml-grammar.ts';
import type { Tag } from './xml-grammar.ts';
import { readGlmPairs } from './xml-params.ts';

/**
 * A block (`<tool_call>`, `<tool_calls>`, `<|tool_call|>`, `<minimax:tool_call>`,
 * `<｜DSML｜function_calls>`, `<function_calls>`) and what it holds: JSON,
 * call elements, GLM's name + pairs, or pythonic calls. The block ends at its
 * closer (broken or not), at the next opener of its kind, or where its
 * content ends when the closer never comes.
 */

interface Block {
  open: Tag;
  /** Index of the tag that ends the content, or -1 (the text ran out). */
  boundary: number;
  /** The boundary is the block's closer (not the next opener). */
  closed: boolean;
  content: Span;
  repairs: Set<RepairKind>;
  tags: Tag[];
}

function isCloser(open: Tag, tag: Tag): boolean {
  return tag.closing && (tag.local === open.local || (open.local === '|tool_call|' && tag.local === 'tool_call'));
}

function boundaryFrom(scope: Scope, open: Tag, from: number): number {
  for (let j = from, tag = scope.tags[j]; tag !== undefined; j += 1, tag = scope.tags[j]) {
    if (isCloser(open, tag) || (!tag.closing && !tag.sentinel && tag.local === open.local && tag.ns === open.ns))
      return j;
  }
  return -1;
}

/** When the content is JSON and the boundary falls inside one of its strings, the block goes on past it. */
function jsonAware(scope: Scope, open: Tag, first: number): number {
  const { text, tags } = scope;
  const jsonStart = skipSpace(text, open.end, tags[first]?.start ?? text.length);
  const c = text.charAt(jsonStart);
  if (c !== '{' && c !== '[') return first;
  const tracker = new BracketTracker();
  let boundary = first;
  let fed = jsonStart;
  for (let skipped = 0; skipped <= MAX_QUOTED_CLOSERS; skipped += 1) {
    const at = tags[boundary]?.start ?? text.length;
    if (tracker.feed(text, fed, at) >= 0 || !tracker.inString) return boundary;
    const later = boundaryFrom(scope, open, boundary + 1);
    if (later < 0) return boundary;
    fed = at;
    boundary = later;
  }
  return boundary;
}

function finish(
  scope: Scope,
  block: Block,
  parts: { family: ReturnType<typeof chooseFamily>; payloads: Payload[]; end?: number },
): Read {
  const closer = scope.tags[block.boundary];
  const { open } = block;
  let end = parts.end ?? (block.closed && closer !== undefined ? closer.end : (closer?.start ?? block.content.end));
  let next = block.closed ? block.boundary + 1 : block.boundary < 0 ? scope.tags.length : block.boundary;
  if (block.closed && closer !== undefined) {
    block.tags.push(closer);
    if (closer.broken) block.repairs.add('broken_closer');
  }
  if (parts.end !== undefined) next = tagIndexAt(scope.tags, end);
  const endedEarly = parts.end !== undefined && closer !== undefined && !block.closed;
  if (endedEarly && closer.start > end && scope.text.slice(end, closer.start).trim() === '') end = closer.start;
  const unclosed = block.boundary < 0;
  return envelope(scope, {
    family: parts.family,
    span: { start: open.start, end },
    payloads: parts.payloads,
    unclosed,
    repairs: block.repairs,
    tags: block.tags,
    next,
  });
}

function readJsonBlock(scope: Scope, block: Block, body: Span): Read {
  const { text } = scope;
  const family = chooseFamily(block.open, undefined, 'json');
  const jsonStart = text.charAt(body.start) === '`' ? indexOfOpener(text, body.start, body.end) : body.start;
  if (!block.closed && jsonStart >= 0) {
    // No closer: the call ends where its JSON does; what follows is prose again.
    const sequence = scanJsonSequence(text, jsonStart, body.end);
    if (sequence.closed) {
      if (family.openEnded !== true) block.repairs.add('missing_closer');
      return finish(scope, block, {
        family,
        payloads: [{ kind: 'json', span: { start: jsonStart, end: sequence.end } }],
        end: sequence.end,
      });
    }
  }
  if (block.closed && endsWithSentinel(text, body.end)) block.repairs.add('leaked_sentinel');
  return finish(scope, block, { family, payloads: [{ kind: 'json', span: body }] });
}

function readCallsBlock(scope: Scope, block: Block, first: number): Read {
  const calls = readCalls(scope, first, { end: block.content.end, inBlock: true });
  const payloads = mergeCalls(calls, block.repairs, block.tags);
  const head = calls[0];
  const last = calls.at(-1);
  const family = chooseFamily(block.open, head?.open, head === undefined ? 'parameters' : bodyKind(head));
  if (block.closed || last === undefined) return finish(scope, block, { family, payloads });
  if (family.openEnded !== true) block.repairs.add('missing_closer');
  return finish(scope, block, { family, payloads, end: last.end });
}

/** End of the first line of `body`, or the first `<` on it (GLM puts the name before the tags). */
function firstStop(text: string, body: Span): number {
  for (let i = body.start; i < body.end; i += 1) {
    const c = text.charAt(i);
    if (c === '\n' || c === '<' || c === '{') return i;
  }
  return body.end;
}

function readGlmBlock(scope: Scope, block: Block, body: Span): Read | undefined {
  const { text, tags } = scope;
  const lineEnd = firstStop(text, body);
  const name = text.slice(body.start, lineEnd).trim();
  if (!GLM_NAME_RE.test(name)) return undefined;
  const afterName = skipSpace(text, lineEnd, body.end);
  const family = chooseFamily(block.open, undefined, 'glm');
  const cutAtEnd = block.boundary < 0 && !endsWithSentinel(text, body.end);
  if (text.charAt(afterName) === '{') {
    // GLM-4 (before 4.5): the name on one line, JSON arguments on the next.
    const region = scanJsonSequence(text, afterName, body.end);
    const end = !block.closed && region.closed ? region.end : undefined;
    if (!block.closed && region.closed) block.repairs.add('missing_closer');
    const args = { kind: 'json' as const, span: { start: afterName, end: region.end }, closed: region.closed };
    const payload: Payload = {
      kind: 'named',
      name,
      args,
      span: { start: block.open.start, end: end ?? body.end },
      reachesEnd: !region.closed && cutAtEnd,
    };
    return finish(
      scope,
      block,
      end === undefined ? { family, payloads: [payload] } : { family, payloads: [payload], end },
    );
  }
  const keyIndex = tagIndexAt(tags, afterName);
  const key = tags[keyIndex];
  const startsPairs = key !== undefined && key.start === afterName && key.local === GLM_KEY && !key.closing;
  // `<tool_call>tool_12</arg_value>`: a call without arguments and a stray closer, nothing in it.
  const strays = startsPairs ? 0 : strayGlmClosers(scope, keyIndex, { start: afterName, end: body.end });
  if (strays > 0) {
    block.repairs.add('repaired_argument_markup');
    block.tags.push(...tags.slice(keyIndex, keyIndex + strays));
  }
  // A lone name counts only in a closed block: "a <tool_call> tag." in prose is not a call to "tag".
  if (!startsPairs && strays === 0 && !(lineEnd === body.end && block.closed)) return undefined;
  const read = readGlmPairs(text, tags, { from: keyIndex, end: block.content.end });
  for (const kind of read.repairs) block.repairs.add(kind);
  block.tags.push(...read.tags);
  const reachesEnd = cutAtEnd && (read.reachesEnd || !block.closed);
  if (!block.closed) block.repairs.add('missing_closer');
  const args = startsPairs ? { kind: 'object' as const, value: read.args } : { kind: 'none' as const };
  const blockEnd = block.closed ? (tags[block.boundary]?.end ?? body.end) : body.end;
  const problem = reachesEnd
    ? undefined
    : unreadGlmMarkup(scope, read, { from: keyIndex + strays, end: block.content.end });
  const payload: Payload =
    problem === undefined
      ? {
          kind: 'named',
          name,
          args,
          span: { start: block.open.start, end: blockEnd },
          reachesEnd,
          ...(reachesEnd && read.reachesEnd ? { cutValue: true } : {}),
        }
      : {
          kind: 'malformed',
          span: { start: problem.position, end: blockEnd },
          message:
            `The arguments of the call to "${name}" cannot be read: at ` +
            `position ${problem.position} expected ${problem.expected}`,
        };
  return finish(scope, block, { family, payloads: [payload] });
}

/** How many GLM closers (`</arg_value>`, `</arg_key>`) alone fill the rest of the body from tags[i]. */
function strayGlmClosers(scope: Scope, i: number, body: Span): number {
  const { text, tags } = scope;
  let pos = body.start;
  let n = 0;
  for (
    let tag = tags[i + n];
    tag !== undefined && tag.start === pos && tag.closing && (tag.local === GLM_KEY || tag.local === GLM_VALUE);
    tag = tags[i + n]
  ) {
    n += 1;
    pos = skipSpace(text, tag.end, body.end);
  }
  return pos >= body.end ? n : 0;
}

/** Argument markup the pairs did not read (a key without a value, a stray tag): never dropped. */
function unreadGlmMarkup(
  scope: Scope,
  read: ReturnType<typeof readGlmPairs>,
  range: { from: number; end: number },
): { position: number; expected: string } | undefined {
  if (read.unpaired !== undefined) return read.unpaired;
  const consumed = new Set(read.tags);
  for (let k = range.from; k < scope.tags.length; k += 1) {
    const tag = scope.tags[k];
    if (tag === undefined || tag.start >= range.end) break;
    if ((tag.local === GLM_KEY || tag.local === GLM_VALUE) && !consumed.has(tag))
      return { position: tag.start, expected: '<arg_key>key</arg_key><arg_value>value</arg_value> for each argument' };
  }
  return undefined;
}

/** What the families whose block this is hold (by exact spelling; by local name for a foreign namespace). */
function allowedBodies(open: Tag): Set<XmlFamily['body']> {
  const spelledOpen = open.ns + open.local;
  const exact = XML_FAMILIES.filter((f) => f.blocks.some((b) => b.open === spelledOpen));
  const fits =
    exact.length > 0 ? exact : XML_FAMILIES.filter((f) => f.blocks.some((b) => localName(b.open) === open.local));
  return new Set(fits.map((f) => f.body));
}

/** A block opened by tags[i]; `tentative` when only asking whether it holds anything. */
export function readBlock(scope: Scope, i: number, tentative: boolean): Read {
  const { text, tags } = scope;
  const open = tags[i];
  if (open === undefined) return { next: i + 1 };
  let boundary = boundaryFrom(scope, open, i + 1);
  if (boundary >= 0) boundary = jsonAware(scope, open, boundary);
  const end = tags[boundary];
  const closed = end !== undefined && isCloser(open, end);
  const block: Block = {
    open,
    boundary,
    closed,
    content: { start: open.end, end: end?.start ?? text.length },
    repairs: new Set(),
    tags: [open],
  };
  if (end !== undefined && !closed && !tentative && readBlock(scope, boundary, true).envelope === undefined) {
    // `<tool_call>{…}<tool_call>` and nothing after: the second opener was meant as the closer.
    block.closed = true;
    block.repairs.add('broken_closer');
  }
  const body = trimSpan(text, block.content);
  const ended = block.boundary >= 0;
  const family = chooseFamily(open, undefined, 'json');
  if (body.start === body.end) {
    if (!ended) return { next: i + 1 };
    return finish(scope, block, {
      family,
      payloads: [{ kind: 'malformed', span: body, message: `The <${open.ns}${open.local}> block is empty` }],
    });
  }
  const bodies = allowedBodies(open);
  const first = text.charAt(body.start);
  if (bodies.has('json') && (first === '{' || first === '[' || text.startsWith('```', body.start)))
    return readJsonBlock(scope, block, body);
  for (let k = i + 1, tag = tags[k]; tag !== undefined && tag.start < block.content.end; k += 1, tag = tags[k]) {
    if (isCallOpener(tag)) return readCallsBlock(scope, block, k);
  }
  const glm = bodies.has('glm') ? readGlmBlock(scope, block, body) : undefined;
  if (glm !== undefined) return glm;
  if (bodies.has('json') && looksPythonic(text, body.start, body.end))
    return finish(scope, block, { family, payloads: [{ kind: 'pythonic', span: body }] });
  if (!ended) return { next: i + 1 };
  return finish(scope, block, {
    family,
    payloads: [
      {
        kind: 'malformed',
        span: body,
        message:
          `The content of <${open.ns}${open.local}> is not a call: expected ` +
          `JSON like {"name": …, "arguments": {…}} or a call element`,
      },
    ],
  });
}
