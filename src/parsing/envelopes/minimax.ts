import type { Span } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { createFinders, DEFAULT_MAX_ENVELOPES, indexInTagHead, trimSpan } from './envelope.ts';
import type { Finders } from './envelope.ts';
import { attributeValue, parseMinimaxParameters } from './xml-params.ts';

/**
 * MiniMax-M2: `<minimax:tool_call><invoke name="x"><parameter name="k">v</parameter></invoke></minimax:tool_call>`,
 * several `<invoke>` per block.
 */

const OPEN = '<minimax:tool_call>';
const CLOSE = '</minimax:tool_call>';

/** Reads every `<invoke name=…>` inside `range`. */
export function parseInvokes(text: string, range: Span, finders: Finders = createFinders(text)): Payload[] {
  const findInvoke = finders('<invoke');
  const findInvokeClose = finders('</invoke>');
  const payloads: Payload[] = [];
  let pos = range.start;
  while (pos < range.end && payloads.length < DEFAULT_MAX_ENVELOPES) {
    const open = findInvoke(pos);
    if (open < 0 || open >= range.end) break;
    const gt = indexInTagHead(text, '>', open + '<invoke'.length);
    if (gt < 0 || gt >= range.end) {
      payloads.push({ kind: 'malformed', span: { start: open, end: range.end }, message: 'The <invoke> tag is not closed with >' });
      break;
    }
    const name = attributeValue(text.slice(open + '<invoke'.length, gt), 'name');
    const bodyStart = gt + 1;
    const close = findInvokeClose(bodyStart);
    const next = findInvoke(bodyStart);
    let bodyEnd = range.end;
    if (close >= 0 && close < bodyEnd) bodyEnd = close;
    if (next >= 0 && next < bodyEnd) bodyEnd = next;
    const closed = bodyEnd === close;
    const end = closed ? close + '</invoke>'.length : bodyEnd;
    const span = { start: open, end };
    if (name === undefined || name === '') {
      payloads.push({ kind: 'malformed', span, message: 'An <invoke> tag has no name="…" attribute' });
    } else {
      const params = parseMinimaxParameters(text, trimSpan(text, { start: bodyStart, end: bodyEnd }), finders);
      const reachesEnd = !closed && bodyEnd === text.length && (params.reachesEnd || Object.keys(params.args).length === 0);
      payloads.push({ kind: 'named', name, args: { kind: 'object', value: params.args }, span, reachesEnd });
    }
    pos = end;
  }
  return payloads;
}

export function findMinimaxCalls(text: string): Envelope[] {
  const finders = createFinders(text);
  const findOpen = finders(OPEN);
  const findClose = finders(CLOSE);
  const envelopes: Envelope[] = [];
  let pos = 0;
  while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
    const open = findOpen(pos);
    if (open < 0) break;
    const contentStart = open + OPEN.length;
    const close = findClose(contentStart);
    const next = findOpen(contentStart);
    let contentEnd = text.length;
    if (close >= 0) contentEnd = close;
    if (next >= 0 && next < contentEnd) contentEnd = next;
    const closed = contentEnd === close;
    const end = closed ? close + CLOSE.length : contentEnd;
    const payloads = parseInvokes(text, { start: contentStart, end: contentEnd }, finders);
    if (payloads.length === 0 && closed) {
      payloads.push({ kind: 'malformed', span: { start: open, end }, message: 'The <minimax:tool_call> block holds no <invoke name="…"> tag' });
    }
    if (payloads.length > 0) envelopes.push({ family: 'minimax', span: { start: open, end }, strong: true, payloads, unclosed: !closed });
    pos = end;
  }
  return envelopes;
}
