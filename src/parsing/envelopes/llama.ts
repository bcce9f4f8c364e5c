import { looksPythonic } from '../pythonic.ts';
import type { Envelope } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, makeFinder, trimSpan } from './envelope.ts';
import { scanJsonSequence } from './json-sequence.ts';

/**
 * Llama 3.x `<|python_tag|>`: JSON calls (`{"name": …, "parameters": {…}}`,
 * several separated by `;`) or built-in tool calls in Python syntax
 * (`brave_search.call(query="…")`), ended by `<|eom_id|>` or `<|eot_id|>`.
 */

const TAG = '<|python_tag|>';
const ENDS = ['<|eom_id|>', '<|eot_id|>'];

export function findLlamaCalls(text: string): Envelope[] {
  const findTag = makeFinder(text, TAG);
  const findEnds = ENDS.map((end) => ({ token: end, find: makeFinder(text, end) }));
  const envelopes: Envelope[] = [];
  let pos = 0;
  while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
    const tag = findTag(pos);
    if (tag < 0) break;
    const contentStart = tag + TAG.length;
    let contentEnd = text.length;
    let end = text.length;
    for (const { token, find } of findEnds) {
      const found = find(contentStart);
      if (found >= 0 && found < contentEnd) {
        contentEnd = found;
        end = found + token.length;
      }
    }
    const next = findTag(contentStart);
    if (next >= 0 && next < contentEnd) {
      contentEnd = next;
      end = next;
    }
    const body = trimSpan(text, { start: contentStart, end: contentEnd });
    const first = text.charAt(body.start);
    const unclosed = contentEnd === text.length;
    if (first === '{' || first === '[') {
      const sequence = scanJsonSequence(text, body.start, body.end);
      // Without an end token, the call ends with its JSON.
      const spanEnd = unclosed && sequence.closed ? sequence.end : end;
      envelopes.push({ family: 'llama_python_tag', span: { start: tag, end: spanEnd }, strong: true, payloads: [{ kind: 'json', span: { start: body.start, end: sequence.end } }], unclosed: !sequence.closed });
      pos = Math.max(spanEnd, contentStart);
    } else if (looksPythonic(text, body.start, body.end)) {
      envelopes.push({ family: 'llama_python_tag', span: { start: tag, end }, strong: true, payloads: [{ kind: 'pythonic', span: body }], unclosed });
      pos = Math.max(end, contentStart);
    } else {
      pos = contentStart;
    }
  }
  return envelopes;
}
