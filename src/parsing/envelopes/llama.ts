import { looksPythonic, pythonicCallsEnd } from '../pythonic.ts';
import type { Envelope } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, makeFinder, trimSpan } from './envelope.ts';
import { scanJsonSequence } from './json-sequence.ts';
import { TOKEN_FAMILIES } from './token-families.ts';

/**
 * Llama 3.x `<|python_tag|>`: JSON calls (`{"name": …, "parameters": {…}}`,
 * several separated by `;`) or built-in tool calls in Python syntax
 * (`brave_search.call(query="…")`), ended by `<|eom_id|>` or `<|eot_id|>`.
 * Llama 4 `<|python_start|>[get_weather(city="Paris"), …]<|python_end|>`:
 * pythonic or JSON calls between the two tokens; a serving stack that stops
 * on `<|python_end|>` leaves it out, so the calls then end with themselves.
 */

const L = TOKEN_FAMILIES.llama;
const OPENERS = [L.pythonTag, L.pythonStart];
const ENDS = [L.pythonEnd, L.endOfMessage, L.endOfTurn, L.endOfMessage4, L.endOfTurn4];

export function findLlamaCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('<|python_')) return envelopes;
  const openers = OPENERS.map((token) => ({ token, find: makeFinder(text, token) }));
  const findEnds = ENDS.map((end) => ({ token: end, find: makeFinder(text, end) }));
  /** The first opener at or after `from`: its position and length. */
  const nextOpener = (from: number): { at: number; length: number } | undefined => {
    let first: { at: number; length: number } | undefined;
    for (const { token, find } of openers) {
      const at = find(from);
      if (at >= 0 && (first === undefined || at < first.at)) first = { at, length: token.length };
    }
    return first;
  };
  let pos = 0;
  while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
    const opener = nextOpener(pos);
    if (opener === undefined) break;
    const tag = opener.at;
    const contentStart = tag + opener.length;
    let contentEnd = text.length;
    let end = text.length;
    for (const { token, find } of findEnds) {
      const found = find(contentStart);
      if (found >= 0 && found < contentEnd) {
        contentEnd = found;
        end = found + token.length;
      }
    }
    const next = nextOpener(contentStart);
    if (next !== undefined && next.at < contentEnd) {
      contentEnd = next.at;
      end = next.at;
    }
    const body = trimSpan(text, { start: contentStart, end: contentEnd });
    const first = text.charAt(body.start);
    const unclosed = contentEnd === text.length;
    if ((first === '{' || first === '[') && !looksPythonic(text, body.start, body.end)) {
      const sequence = scanJsonSequence(text, body.start, body.end);
      // Without an end token, the call ends with its JSON.
      const spanEnd = unclosed && sequence.closed ? sequence.end : end;
      envelopes.push({
        family: 'llama_python_tag',
        span: { start: tag, end: spanEnd },
        strong: true,
        payloads: [{ kind: 'json', span: { start: body.start, end: sequence.end } }],
        unclosed: !sequence.closed,
      });
      pos = Math.max(spanEnd, contentStart);
    } else if (looksPythonic(text, body.start, body.end)) {
      // Without an end token, the calls end with themselves (when they read).
      const callsEnd = unclosed ? pythonicCallsEnd(text, body.start, body.end) : -1;
      const payloadEnd = callsEnd >= 0 ? callsEnd : body.end;
      const spanEnd = callsEnd >= 0 ? callsEnd : end;
      envelopes.push({
        family: 'llama_python_tag',
        span: { start: tag, end: spanEnd },
        strong: true,
        payloads: [{ kind: 'pythonic', span: { start: body.start, end: payloadEnd } }],
        unclosed: unclosed && callsEnd < 0,
      });
      pos = Math.max(spanEnd, contentStart);
    } else {
      pos = contentStart;
    }
  }
  return envelopes;
}
