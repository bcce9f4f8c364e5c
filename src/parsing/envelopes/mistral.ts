import { scanRegion } from '../scanner.ts';
import type { RepairKind } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, makeFinder, skipSpace } from './envelope.ts';
import { scanJsonSequence } from './json-sequence.ts';
import { isQuotedToken, TOKEN_FAMILIES } from './token-families.ts';

/**
 * Mistral's `[TOOL_CALLS]` token. Older tokenizers follow it with a JSON list
 * (`[TOOL_CALLS] [{"name": …, "arguments": {…}}]`); newer ones with
 * `name[ARGS]{…}` (optionally `name[CALL_ID]id[ARGS]{…}`) or `name{…}`, the
 * token repeated before each call. When the serving stack ate the token,
 * `name[ARGS]{…}` at the start of the text or of a line (or right after
 * another call) still reads, as a repair.
 */

const M = TOKEN_FAMILIES.mistral;
const NAME_RE = /[A-Za-z_][\w.-]*/y;
/** The name (and call id) right before an `[ARGS]` whose `[TOOL_CALLS]` is missing. */
const NAME_BEFORE_ARGS_RE = /[A-Za-z_][\w.-]*(?:\[CALL_ID\][\w-]*)?$/;
const LOOK_BACK = 200;

function skipEndToken(text: string, end: number): { end: number; leaked: boolean } {
  const after = skipSpace(text, end);
  return text.startsWith(M.endOfSequence, after)
    ? { end: after + M.endOfSequence.length, leaked: true }
    : { end, leaked: false };
}

/** After a name, what makes it a call: its id, its arguments, or nothing more (a line or the text ends). */
function endsCallName(text: string, at: number): boolean {
  if (text.startsWith(M.callId, at) || text.startsWith(M.args, at)) return true;
  const next = skipSpace(text, at);
  if (
    next >= text.length ||
    text.charAt(next) === '{' ||
    text.startsWith(M.endOfSequence, next) ||
    text.startsWith(M.toolCalls, next)
  )
    return true;
  return /^[ \t]*\r?\n/.test(text.slice(at, at + 8));
}

/** The end of the line holding `pos`, trailing blanks left out. */
function nextLineEnd(text: string, pos: number): number {
  const newline = text.indexOf('\n', pos);
  let end = newline < 0 ? text.length : newline;
  while (end > pos && /\s/.test(text.charAt(end - 1))) end -= 1;
  return end;
}

/**
 * `name[CALL_ID]id[ARGS]{…}` (or `name{…}`, or a bare name) starting at `nameStart`; the envelope starts at `start`.
 */
function namedEnvelope(
  text: string,
  at: { start: number; nameStart: number; name: string },
  repairs: Set<RepairKind>,
): Envelope {
  const { start, name } = at;
  let cursor = at.nameStart + name.length;
  if (text.startsWith(M.callId, cursor)) {
    cursor += M.callId.length;
    while (cursor < text.length && /[\w-]/.test(text.charAt(cursor))) cursor += 1;
  }
  const hasArgs = text.startsWith(M.args, cursor);
  if (hasArgs) cursor += M.args.length;
  const lineEnd = nextLineEnd(text, cursor);
  cursor = skipSpace(text, cursor);
  let payload: Payload;
  let end: number;
  let unclosed: boolean;
  if (text.charAt(cursor) === '{') {
    const region = scanRegion(text, cursor);
    const after = region.closed ? skipEndToken(text, region.end) : { end: region.end, leaked: false };
    if (after.leaked) repairs.add('leaked_sentinel');
    end = after.end;
    unclosed = !region.closed;
    payload = {
      kind: 'named',
      name,
      args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed },
      span: { start, end },
      reachesEnd: unclosed,
    };
  } else if (hasArgs && cursor < lineEnd) {
    // `[ARGS]city="Paris"`: arguments in another grammar, read (or reported) to the end of the line, never dropped.
    end = lineEnd;
    unclosed = false;
    payload = {
      kind: 'named',
      name,
      args: { kind: 'json', span: { start: cursor, end: lineEnd }, closed: true },
      span: { start, end },
      reachesEnd: false,
    };
  } else {
    end = cursor;
    unclosed = cursor >= text.length;
    payload = { kind: 'named', name, args: { kind: 'none' }, span: { start, end }, reachesEnd: unclosed };
  }
  return {
    family: 'mistral',
    span: { start, end },
    strong: true,
    payloads: [payload],
    unclosed,
    ...(repairs.size > 0 ? { repairs: [...repairs] } : {}),
  };
}

/** The envelope of a `[TOOL_CALLS]` marker at `marker`, or undefined when the marker is only mentioned in prose. */
function markerEnvelope(text: string, marker: number): Envelope | undefined {
  const start = skipSpace(text, marker + M.toolCalls.length);
  const first = text.charAt(start);
  const repairs = new Set<RepairKind>();
  if (first === '[' || first === '{') {
    const sequence = scanJsonSequence(text, start);
    const after = sequence.closed ? skipEndToken(text, sequence.end) : { end: sequence.end, leaked: false };
    if (after.leaked) repairs.add('leaked_sentinel');
    const payloads: Payload[] = [{ kind: 'json', span: { start, end: sequence.end } }];
    return {
      family: 'mistral',
      span: { start: marker, end: after.end },
      strong: true,
      payloads,
      unclosed: !sequence.closed,
      ...(repairs.size > 0 ? { repairs: [...repairs] } : {}),
    };
  }
  NAME_RE.lastIndex = start;
  const name = NAME_RE.exec(text)?.[0];
  if (name === undefined) {
    const span = { start: marker, end: start };
    return {
      family: 'mistral',
      span,
      strong: true,
      payloads: [{ kind: 'malformed', span, message: `Nothing after ${M.toolCalls} reads as a call.` }],
      unclosed: start >= text.length,
    };
  }
  // `[TOOL_CALLS] before each call`: a sentence about the token.
  if (!endsCallName(text, start + name.length)) return undefined;
  return namedEnvelope(text, { start: marker, nameStart: start, name }, repairs);
}

/** Where a call whose `[TOOL_CALLS]` is missing starts, for the `[ARGS]` at `args`; -1 when none does. */
function openerlessStart(text: string, args: number, previousEnd: number): number {
  const floor = Math.max(0, args - LOOK_BACK);
  const match = NAME_BEFORE_ARGS_RE.exec(text.slice(floor, args));
  if (match === null) return -1;
  const nameStart = floor + match.index;
  if (nameStart === previousEnd || (previousEnd >= 0 && skipSpace(text, previousEnd, nameStart) === nameStart))
    return nameStart;
  // Only at the start of the text or of a line: `see x[ARGS]` mid-sentence is not a call.
  let i = nameStart - 1;
  while (i >= 0 && (text.charAt(i) === ' ' || text.charAt(i) === '\t')) i -= 1;
  return i < 0 || text.charAt(i) === '\n' ? nameStart : -1;
}

export function findMistralCalls(text: string): Envelope[] {
  const findMarker = makeFinder(text, M.toolCalls);
  const findArgs = makeFinder(text, M.args);
  const envelopes: Envelope[] = [];
  let pos = 0;
  let previousEnd = -1;
  while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
    const marker = findMarker(pos);
    const args = findArgs(pos);
    if (marker < 0 && args < 0) break;
    if (marker >= 0 && (args < 0 || marker < args)) {
      const env = isQuotedToken(text, marker, marker + M.toolCalls.length) ? undefined : markerEnvelope(text, marker);
      if (env === undefined) {
        pos = marker + M.toolCalls.length;
        continue;
      }
      envelopes.push(env);
      previousEnd = env.span.end;
      pos = Math.max(env.span.end, marker + M.toolCalls.length);
      continue;
    }
    const nameStart = isQuotedToken(text, args, args + M.args.length) ? -1 : openerlessStart(text, args, previousEnd);
    NAME_RE.lastIndex = nameStart;
    const name = nameStart < 0 ? undefined : NAME_RE.exec(text)?.[0];
    // Without the marker, only arguments that follow make it a call (`json[ARGS]` alone is text).
    if (name === undefined || text.charAt(skipSpace(text, args + M.args.length)) !== '{') {
      pos = args + M.args.length;
      continue;
    }
    const env = namedEnvelope(text, { start: nameStart, nameStart, name }, new Set(['missing_opener']));
    envelopes.push(env);
    previousEnd = env.span.end;
    pos = Math.max(env.span.end, args + M.args.length);
  }
  return envelopes;
}
