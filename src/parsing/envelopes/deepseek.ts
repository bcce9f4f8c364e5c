import { scanRegion } from '../scanner.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, makeFinder } from './envelope.ts';

/**
 * DeepSeek's special tokens (fullwidth bars, U+2581 as space; ASCII look-alikes
 * accepted because detokenisers sometimes produce them):
 * V3/R1:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 * V3.1:   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 */

const TOKEN_RE = /<[｜|]tool[▁_ ](calls?)[▁_ ](begin|end)[｜|]>|<[｜|]tool[▁_ ]sep[｜|]>/g;

type TokenKind = 'calls_begin' | 'calls_end' | 'call_begin' | 'call_end' | 'sep';

interface Token {
  kind: TokenKind;
  start: number;
  end: number;
}

interface OpenCall {
  begin: Token;
  sep?: Token;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    // Bounded: a flood of tokens is cut where the envelope cap would cut it anyway.
    if (out.length >= 8 * DEFAULT_MAX_ENVELOPES) break;
    const kind: TokenKind = m[1] === undefined ? 'sep' : (`${m[1]}_${m[2] ?? ''}` as TokenKind);
    out.push({ kind, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

interface Finders {
  newline: (from: number) => number;
  brace: (from: number) => number;
}

function readCall(text: string, call: OpenCall, range: { finders: Finders; contentEnd: number; end: number }): Payload {
  const { finders, contentEnd, end } = range;
  const span = { start: call.begin.start, end };
  if (call.sep === undefined) return { kind: 'malformed', span, message: 'A DeepSeek tool call has no <｜tool▁sep｜> between type and name' };
  const left = text.slice(call.begin.end, call.sep.start).trim();
  let name = left;
  let argsFrom = call.sep.end;
  if (left === 'function' || left === '') {
    // V3/R1: the name is on the line after the separator.
    const newline = finders.newline(call.sep.end);
    const lineEnd = newline >= 0 && newline < contentEnd ? newline : contentEnd;
    name = text.slice(call.sep.end, lineEnd).trim();
    argsFrom = lineEnd;
  }
  const brace = finders.brace(argsFrom);
  const reachesEndOfText = contentEnd === text.length;
  if (brace < 0 || brace >= contentEnd) return { kind: 'named', name, args: { kind: 'none' }, span, reachesEnd: reachesEndOfText && name === '' };
  const region = scanRegion(text, brace, contentEnd);
  return { kind: 'named', name, args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed }, span, reachesEnd: !region.closed && reachesEndOfText };
}

export function findDeepSeekCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('<｜tool') && !text.includes('<|tool')) return envelopes;
  const finders: Finders = { newline: makeFinder(text, '\n'), brace: makeFinder(text, '{') };
  let block: { start: number; end: number; payloads: Payload[] } | undefined;
  let call: OpenCall | undefined;
  /** Ends the block at `end` (its last call's end when undefined). */
  const flush = (end: number | undefined, unclosed: boolean): void => {
    if (block !== undefined && block.payloads.length > 0) {
      envelopes.push({ family: 'deepseek', span: { start: block.start, end: end ?? block.end }, strong: true, payloads: block.payloads, unclosed });
    }
    block = undefined;
  };
  const finish = (contentEnd: number, end: number): void => {
    if (call === undefined) return;
    block ??= { start: call.begin.start, end, payloads: [] };
    block.payloads.push(readCall(text, call, { finders, contentEnd, end }));
    block.end = end;
    call = undefined;
  };
  for (const token of tokens(text)) {
    if (envelopes.length >= DEFAULT_MAX_ENVELOPES) break;
    if (token.kind === 'calls_begin') {
      finish(token.start, token.start);
      flush(undefined, false);
      block = { start: token.start, end: token.end, payloads: [] };
    } else if (token.kind === 'call_begin') {
      finish(token.start, token.start);
      block ??= { start: token.start, end: token.end, payloads: [] };
      call = { begin: token };
    } else if (token.kind === 'sep') {
      if (call !== undefined && call.sep === undefined) call.sep = token;
    } else if (token.kind === 'call_end') {
      finish(token.start, token.end);
    } else {
      finish(token.start, token.start);
      flush(token.end, false);
    }
  }
  const open = call !== undefined;
  finish(text.length, text.length);
  flush(undefined, open);
  return envelopes;
}
