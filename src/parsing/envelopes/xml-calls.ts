import { BracketTracker, scanRegion } from '../scanner.ts';
import type { RepairKind } from '../types.ts';
import type { NamedArgs, Payload } from './envelope.ts';
import { skipSpace } from './envelope.ts';
import { LEAKED_SENTINELS, PARAMETER, XML_BLOCK_NAMES } from './xml-families.ts';
import { attributeValue, equalsName, tagIndexAt } from './xml-grammar.ts';
import type { Tag } from './xml-grammar.ts';
import { readChildTags, readParameterTags } from './xml-params.ts';

/**
 * One call element: `<function=NAME>…</function>` or `<invoke name="NAME">…</invoke>`
 * (any namespace), its arguments as parameter tags, JSON, or one tag per
 * parameter. A missing or broken closer is a repair; a call still open at the
 * end of the text is flagged (`reachesEnd`) so that a truncated reply drops it.
 */

export interface CallRead {
  payload: Payload;
  end: number;
  /** Index of the first tag after the call. */
  next: number;
  closed: boolean;
  repairs: Set<RepairKind>;
  /** The call's opening tag (also the first of `tags`). */
  open: Tag;
  /** The tags of the call (the family's namespaces are checked on them). */
  tags: Tag[];
  args: 'parameters' | 'json' | 'children' | 'none' | 'malformed';
}

/** How many closers inside JSON strings (`"text": "…</function>…"`) a call may step over. */
export const MAX_QUOTED_CLOSERS = 4;

export function isCallOpener(tag: Tag): boolean {
  return !tag.closing && !tag.sentinel && (tag.local === 'function' || tag.local === 'invoke');
}

/** A name as written, refused when it holds whitespace or markup. */
const NAME_RE = /^[^\s<>"'=/]{1,200}$/;

/** The text at `end` closes with a leaked sentinel (the model ended its turn there). */
export function endsWithSentinel(text: string, end: number): boolean {
  let at = end;
  while (at > 0 && /\s/.test(text.charAt(at - 1))) at -= 1;
  return LEAKED_SENTINELS.some((s) => at >= s.length && text.startsWith(s, at - s.length));
}

/** Index of the tag that ends the body of the call opened by tags[i] (before offset `end`), or -1. */
function boundaryFrom(tags: readonly Tag[], from: number, call: { local: string; end: number }): number {
  for (let j = from; j < tags.length; j += 1) {
    const tag = tags[j];
    if (tag === undefined || tag.start >= call.end) return -1;
    if ((tag.closing && tag.local === call.local) || isCallOpener(tag) || XML_BLOCK_NAMES.has(tag.local)) return j;
  }
  return -1;
}

/** A JSON body goes on past a boundary that falls inside one of its strings. */
function jsonAwareBoundary(
  text: string,
  tags: readonly Tag[],
  body: { jsonStart: number; first: number; local: string; end: number },
): number {
  const tracker = new BracketTracker();
  let boundary = body.first;
  let fed = body.jsonStart;
  for (let skipped = 0; skipped <= MAX_QUOTED_CLOSERS && boundary >= 0; skipped += 1) {
    const at = tags[boundary]?.start ?? body.end;
    if (tracker.feed(text, fed, at) >= 0 || !tracker.inString) return boundary;
    const later = boundaryFrom(tags, boundary + 1, { local: body.local, end: body.end });
    if (later < 0) return boundary;
    fed = at;
    boundary = later;
  }
  return boundary;
}

type ArgsOutcome =
  { args: NamedArgs; reachesEnd: boolean } | { unread: { position: number; expected: string } } | undefined;

function readArgs(
  text: string,
  tags: readonly Tag[],
  body: { from: number; start: number; end: number; call: CallRead },
): ArgsOutcome {
  const { start, end, call } = body;
  if (start >= end) return { args: { kind: 'none' }, reachesEnd: false };
  if (text.charAt(start) === '{') {
    const region = scanRegion(text, start, end);
    call.args = 'json';
    if (region.closed && endsWithSentinel(text, end) && text.slice(region.end, end).trim() !== '')
      call.repairs.add('leaked_sentinel');
    return {
      args: { kind: 'json', span: { start, end: region.end }, closed: region.closed },
      reachesEnd: !region.closed && end === text.length,
    };
  }
  const first = tags[body.from];
  if (
    first !== undefined &&
    first.start < end &&
    tags.slice(body.from, body.from + 64).some((t) => t.local === PARAMETER && !t.closing && t.start < end)
  ) {
    const read = readParameterTags(text, tags, { from: body.from, end, gapsFrom: start });
    for (const kind of read.repairs) call.repairs.add(kind);
    call.tags.push(...read.tags);
    call.args = 'parameters';
    // Markup or text the parameters did not read: the call fails rather than lose an argument.
    if (read.unpaired !== undefined && !read.reachesEnd) return { unread: read.unpaired };
    return { args: { kind: 'object', value: read.args }, reachesEnd: read.reachesEnd };
  }
  if (text.charAt(start) === '<') {
    const read = readChildTags(text, { start, end });
    // `<parameter>v</parameter>` is a parameter element that lost its name, not an argument called "parameter".
    if (read.count > 0 && Object.hasOwn(read.args, PARAMETER))
      return { unread: { position: start, expected: 'a parameter name: <parameter=NAME> or <parameter name="NAME">' } };
    if (read.count > 0) {
      for (const kind of read.repairs) call.repairs.add(kind);
      call.args = 'children';
      return { args: { kind: 'object', value: read.args }, reachesEnd: false };
    }
  }
  return undefined;
}

/** Reads the call opened by tags[i]; it cannot run past offset `end`. Undefined when there is no tags[i]. */
export function readCall(text: string, tags: readonly Tag[], at: { i: number; end: number }): CallRead | undefined {
  const open = tags[at.i];
  if (open === undefined) return undefined;
  const name = (open.local === 'function' ? equalsName(open.head) : attributeValue(open.head, 'name')) ?? '';
  const call: CallRead = {
    payload: { kind: 'malformed', span: { start: open.start, end: open.end }, message: '' },
    end: open.end,
    next: at.i + 1,
    closed: false,
    repairs: new Set(),
    open,
    tags: [open],
    args: 'malformed',
  };
  let boundary = boundaryFrom(tags, at.i + 1, { local: open.local, end: at.end });
  const jsonStart = skipSpace(text, open.end, boundary < 0 ? at.end : (tags[boundary]?.start ?? at.end));
  if (text.charAt(jsonStart) === '{' && boundary >= 0)
    boundary = jsonAwareBoundary(text, tags, { jsonStart, first: boundary, local: open.local, end: at.end });
  const closer = boundary < 0 ? undefined : tags[boundary];
  const bodyEnd = closer?.start ?? at.end;
  let trimmedEnd = bodyEnd;
  while (trimmedEnd > jsonStart && /\s/.test(text.charAt(trimmedEnd - 1))) trimmedEnd -= 1;
  call.closed = closer !== undefined && closer.closing && closer.local === open.local;
  call.end = call.closed && closer !== undefined ? closer.end : trimmedEnd;
  call.next = boundary < 0 ? tags.length : call.closed ? boundary + 1 : boundary;
  if (boundary < 0) {
    // Past the call's body: the first tag at or after its end.
    call.next = Math.max(at.i + 1, tagIndexAt(tags, bodyEnd));
  }
  const span = { start: open.start, end: call.end };
  const tagText = open.local === 'function' ? `<function=${name}>` : '<invoke>';
  if (!NAME_RE.test(name)) {
    call.payload = {
      kind: 'malformed',
      span,
      message:
        open.local === 'invoke' && name === ''
          ? 'An <invoke> tag has no name="…" attribute'
          : `The call name in ${tagText} is not a tool name`,
    };
    return call;
  }
  if (call.closed && closer !== undefined) {
    call.tags.push(closer);
    if (closer.broken) call.repairs.add('broken_closer');
  }
  const read = readArgs(text, tags, { from: at.i + 1, start: jsonStart, end: trimmedEnd, call });
  if (read === undefined) {
    call.payload = { kind: 'malformed', span, message: `The body of ${tagText} is neither JSON nor parameter tags` };
    return call;
  }
  if ('unread' in read) {
    const { position, expected } = read.unread;
    call.payload = {
      kind: 'malformed',
      span: { start: position, end: call.end },
      message: `The arguments of the call to "${name}" cannot be read: at position ${position} expected ${expected}`,
    };
    return call;
  }
  if (read.args.kind === 'none') call.args = 'none';
  const cut = !call.closed && bodyEnd === text.length && !endsWithSentinel(text, bodyEnd);
  if (!call.closed) call.repairs.add('missing_closer');
  if (endsWithSentinel(text, trimmedEnd) && call.args !== 'json') call.repairs.add('leaked_sentinel');
  call.payload = {
    kind: 'named',
    name,
    args: read.args,
    span,
    reachesEnd: read.reachesEnd || cut,
    ...(read.reachesEnd && cut ? { cutValue: true } : {}),
  };
  return call;
}
