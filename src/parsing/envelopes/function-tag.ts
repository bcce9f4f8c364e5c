import { scanRegion } from '../scanner.ts';
import type { Span } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { createFinders, DEFAULT_MAX_ENVELOPES, indexInTagHead, trimSpan } from './envelope.ts';
import type { Finders } from './envelope.ts';
import { parseQwenParameters } from './xml-params.ts';

/**
 * `<function=name>…</function>`: Llama 3.1's custom-tool format with a JSON
 * body, and Qwen3-Coder's with `<parameter=k>v</parameter>` children (alone
 * or inside `<tool_call>`).
 */

const OPEN = '<function=';
const CLOSE = '</function>';

export interface FunctionTagCall {
  payload: Payload;
  span: Span;
  /** The body's syntax: XML parameters or JSON. */
  xml: boolean;
  closed: boolean;
}

/** Reads every `<function=…>` inside `range`. */
export function parseFunctionTags(text: string, range: Span, finders: Finders = createFinders(text)): FunctionTagCall[] {
  const findOpen = finders(OPEN);
  const findClose = finders(CLOSE);
  const calls: FunctionTagCall[] = [];
  let pos = range.start;
  while (pos < range.end && calls.length < DEFAULT_MAX_ENVELOPES) {
    const open = findOpen(pos);
    if (open < 0 || open >= range.end) break;
    const gt = indexInTagHead(text, '>', open + OPEN.length);
    if (gt < 0 || gt >= range.end) {
      const span = { start: open, end: range.end };
      calls.push({ payload: { kind: 'malformed', span, message: 'The <function=…> tag is not closed with >' }, span, xml: false, closed: false });
      break;
    }
    const name = text.slice(open + OPEN.length, gt).trim().replace(/^["']|["']$/g, '');
    const bodyStart = gt + 1;
    const close = findClose(bodyStart);
    const next = findOpen(bodyStart);
    let bodyEnd = range.end;
    if (close >= 0 && close < bodyEnd) bodyEnd = close;
    if (next >= 0 && next < bodyEnd) bodyEnd = next;
    const closed = bodyEnd === close;
    const body = trimSpan(text, { start: bodyStart, end: bodyEnd });
    let end = closed ? close + CLOSE.length : bodyEnd;
    let payload: Payload;
    let xml = false;
    if (text.startsWith('<parameter=', body.start)) {
      xml = true;
      const parsed = parseQwenParameters(text, body, finders);
      const reachesEnd = !closed && bodyEnd === text.length && (parsed.reachesEnd || Object.keys(parsed.args).length === 0);
      payload = { kind: 'named', name, args: { kind: 'object', value: parsed.args }, span: { start: open, end }, reachesEnd };
    } else if (text.charAt(body.start) === '{') {
      const region = scanRegion(text, body.start, bodyEnd);
      if (!closed && region.closed) end = region.end;
      const reachesEnd = !region.closed && bodyEnd === text.length;
      payload = { kind: 'named', name, args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed }, span: { start: open, end }, reachesEnd };
    } else if (body.start === body.end) {
      payload = { kind: 'named', name, args: { kind: 'none' }, span: { start: open, end }, reachesEnd: !closed && bodyEnd === text.length };
    } else {
      payload = { kind: 'malformed', span: { start: open, end }, message: `The body of <function=${name}> is neither JSON nor <parameter=…> tags` };
    }
    calls.push({ payload, span: { start: open, end }, xml, closed });
    pos = end;
  }
  return calls;
}

/** Top-level `<function=…>` calls, one envelope each. An unclosed tag around unreadable text is prose. */
export function findFunctionTags(text: string): Envelope[] {
  const calls = parseFunctionTags(text, { start: 0, end: text.length });
  return calls.filter((call) => call.closed || call.payload.kind !== 'malformed').map((call) => ({
    family: call.xml ? 'qwen3_coder' : 'function_tag',
    span: call.span,
    strong: true,
    payloads: [call.payload],
    unclosed: !call.closed,
  }));
}
