import { scanRegion } from '../scanner.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, makeFinder, skipSpace } from './envelope.ts';
import { scanJsonSequence } from './json-sequence.ts';

/**
 * Mistral's `[TOOL_CALLS]` token. Older tokenizers follow it with a JSON list
 * (`[TOOL_CALLS] [{"name": …, "arguments": {…}}]`); newer ones with
 * `name[ARGS]{…}` (optionally `name[CALL_ID]id[ARGS]{…}`) or `name{…}`, the
 * token repeated before each call.
 */

const MARKER = '[TOOL_CALLS]';
const NAME_RE = /[A-Za-z_][\w.-]*/y;
const CALL_ID = '[CALL_ID]';
const ARGS = '[ARGS]';
const END_OF_SEQUENCE = '</s>';

function skipEndToken(text: string, end: number): number {
  const after = skipSpace(text, end);
  return text.startsWith(END_OF_SEQUENCE, after) ? after + END_OF_SEQUENCE.length : end;
}

export function findMistralCalls(text: string): Envelope[] {
  const findMarker = makeFinder(text, MARKER);
  const envelopes: Envelope[] = [];
  let pos = 0;
  while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
    const marker = findMarker(pos);
    if (marker < 0) break;
    const start = skipSpace(text, marker + MARKER.length);
    const first = text.charAt(start);
    if (first === '[' || first === '{') {
      const sequence = scanJsonSequence(text, start);
      const end = sequence.closed ? skipEndToken(text, sequence.end) : sequence.end;
      envelopes.push({ family: 'mistral', span: { start: marker, end }, strong: true, payloads: [{ kind: 'json', span: { start, end: sequence.end } }], unclosed: !sequence.closed });
      pos = end;
      continue;
    }
    NAME_RE.lastIndex = start;
    const name = NAME_RE.exec(text)?.[0];
    if (name === undefined) {
      const span = { start: marker, end: start };
      envelopes.push({ family: 'mistral', span, strong: true, payloads: [{ kind: 'malformed', span, message: 'Nothing after [TOOL_CALLS] reads as a call' }], unclosed: start >= text.length });
      pos = start + 1;
      continue;
    }
    let cursor = start + name.length;
    if (text.startsWith(CALL_ID, cursor)) {
      cursor += CALL_ID.length;
      while (cursor < text.length && /[\w-]/.test(text.charAt(cursor))) cursor += 1;
    }
    if (text.startsWith(ARGS, cursor)) cursor += ARGS.length;
    cursor = skipSpace(text, cursor);
    let payload: Payload;
    let end: number;
    let unclosed: boolean;
    if (text.charAt(cursor) === '{') {
      const region = scanRegion(text, cursor);
      end = region.closed ? skipEndToken(text, region.end) : region.end;
      unclosed = !region.closed;
      payload = { kind: 'named', name, args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed }, span: { start: marker, end }, reachesEnd: unclosed };
    } else {
      end = cursor;
      unclosed = cursor >= text.length;
      payload = { kind: 'named', name, args: { kind: 'none' }, span: { start: marker, end }, reachesEnd: unclosed };
    }
    envelopes.push({ family: 'mistral', span: { start: marker, end }, strong: true, payloads: [payload], unclosed });
    pos = Math.max(end, marker + MARKER.length);
  }
  return envelopes;
}
