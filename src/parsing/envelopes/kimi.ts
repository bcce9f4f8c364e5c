import { scanRegion } from '../scanner.ts';
import type { RepairKind } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, skipSpace, trimSpan } from './envelope.ts';
import { brokenCloserEnd, newTokenBlock, TOKEN_FAMILIES, tokenScanner } from './token-families.ts';
import { unreadText } from './unread-text.ts';
import type { FamilyToken, TokenBlock } from './token-families.ts';

/**
 * Kimi K2's special tokens:
 * <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{…}
 * <|tool_call_end|>…<|tool_calls_section_end|> (one line in the output; two here)
 * A call is read from `<|tool_call_begin|>` on, so a section opener the
 * serving stack ate, or a missing closer, is a repair rather than a miss.
 * The name goes on raw (`functions.get_weather:0`): cleaning it is central.
 */

const K = TOKEN_FAMILIES.kimi;

type TokenKind = 'section_begin' | 'section_end' | 'call_begin' | 'argument_begin' | 'call_end';

const KINDS = new Map<string, TokenKind>([
  [K.sectionBegin, 'section_begin'],
  [K.sectionBeginSingular, 'section_begin'],
  [K.sectionEnd, 'section_end'],
  [K.sectionEndSingular, 'section_end'],
  [K.callBegin, 'call_begin'],
  [K.argumentBegin, 'argument_begin'],
  [K.callEnd, 'call_end'],
]);

const tokens = tokenScanner(KINDS, 8 * DEFAULT_MAX_ENVELOPES);

type Token = FamilyToken<TokenKind>;

interface OpenCall {
  begin: Token;
  argument?: Token;
}

/**
 * The end of the JSON string opening at `start` (just past its closing quote), or -1 when it does not close before
 * `limit`.
 */
function jsonStringEnd(text: string, start: number, limit: number): number {
  for (let i = start + 1; i < limit; i += 1) {
    const c = text.charAt(i);
    if (c === '\\') i += 1;
    else if (c === '"') return i + 1;
  }
  return -1;
}

/** A call read up to `contentEnd` (the next token or the end of the text), closed by `closer` when it came. */
function readCall(
  text: string,
  call: OpenCall,
  bounds: { contentEnd: number; closer: Token | undefined },
): { payload: Payload; end: number; repair?: RepairKind } | undefined {
  const { contentEnd, closer } = bounds;
  const atTextEnd = closer === undefined && contentEnd === text.length;
  const start = call.begin.start;
  const finish = (
    payload: Payload,
    end: number,
    args: { closed: boolean } | undefined,
  ): { payload: Payload; end: number; repair?: RepairKind } => {
    if (closer !== undefined) return { payload, end };
    // No closer: a misspelled one right after the arguments, or none at all.
    const broken = args?.closed === true ? brokenCloserEnd(text, skipSpace(text, end, contentEnd), K.callEnd) : -1;
    if (broken >= 0 && broken <= contentEnd)
      return { payload: { ...payload, span: { start, end: broken } }, end: broken, repair: 'broken_closer' };
    return { payload, end, repair: 'missing_closer' };
  };
  if (call.argument === undefined) {
    const head = text.slice(call.begin.end, contentEnd).trim();
    const jsonAfterName = /^[^\s{]*\s*\{/.test(head);
    // `<|tool_call_begin|> before each call`: a sentence about the token, not a call.
    if (/\s/.test(head) && !jsonAfterName) return undefined;
    const end = closer?.end ?? contentEnd;
    const span = { start, end };
    if (jsonAfterName)
      return finish(
        {
          kind: 'malformed',
          span,
          message: `A Kimi tool call has no ${K.argumentBegin} between its name and its arguments.`,
        },
        end,
        undefined,
      );
    return finish({ kind: 'named', name: head, args: { kind: 'none' }, span, reachesEnd: atTextEnd }, end, undefined);
  }
  const name = text.slice(call.begin.end, call.argument.start).trim();
  const argsStart = skipSpace(text, call.argument.end, contentEnd);
  if (argsStart >= contentEnd) {
    const end = closer?.end ?? contentEnd;
    return finish({ kind: 'named', name, args: { kind: 'none' }, span: { start, end }, reachesEnd: atTextEnd }, end, {
      closed: true,
    });
  }
  if (text.charAt(argsStart) === '"') {
    // Arguments encoded twice (`"{\"city\": …}"`): the JSON string goes on, the resolver decodes it.
    const stringEnd = jsonStringEnd(text, argsStart, contentEnd);
    const closed = stringEnd >= 0;
    const argsEnd = closed ? stringEnd : trimSpan(text, { start: argsStart, end: contentEnd }).end;
    const end = closer?.end ?? argsEnd;
    const payload: Payload = {
      kind: 'named',
      name,
      args: { kind: 'json', span: { start: argsStart, end: argsEnd }, closed },
      span: { start, end },
      reachesEnd: atTextEnd && !closed,
    };
    return finish(payload, end, { closed });
  }
  if (text.charAt(argsStart) !== '{') {
    const end = closer?.end ?? contentEnd;
    return finish(
      {
        kind: 'malformed',
        span: { start, end },
        message: `The arguments of the Kimi tool call "${name}" are not a JSON object.`,
      },
      end,
      undefined,
    );
  }
  const region = scanRegion(text, argsStart, contentEnd);
  const end = closer?.end ?? region.end;
  // `{…}{…}` or `{…} words` before the closer: never a call with the rest dropped.
  const unread = closer !== undefined && region.closed ? unreadText(text, region.end, contentEnd) : -1;
  if (unread >= 0)
    return finish(
      {
        kind: 'malformed',
        span: { start: unread, end },
        message:
          `The arguments of the Kimi tool call "${name}" are followed by more text: ` +
          `at position ${unread} expected ${K.callEnd} right after the JSON object`,
      },
      end,
      undefined,
    );
  const payload: Payload = {
    kind: 'named',
    name,
    args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed },
    span: { start, end },
    reachesEnd: atTextEnd && !region.closed,
  };
  return finish(payload, end, { closed: region.closed });
}

export function findKimiCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('<|tool_call')) return envelopes;
  let block: TokenBlock | undefined;
  let call: OpenCall | undefined;
  /**
   * Ends the block at `end` (its last call's end when undefined); `closed` when its section end came (or was never
   * due).
   */
  const flush = (end: number | undefined, closed: boolean): void => {
    if (block === undefined) return;
    let spanEnd = end ?? block.end;
    if (block.payloads.length === 0 && block.opened) {
      // A section opener with no call: cut right after it, an empty section (an attempt that
      // reads as nothing), or a sentence naming the token (left alone).
      const cut = skipSpace(text, block.end) >= text.length;
      if (cut || (closed && end !== undefined)) {
        const span = { start: block.start, end: cut ? text.length : spanEnd };
        spanEnd = span.end;
        block.payloads.push(
          cut
            ? { kind: 'named', name: '', args: { kind: 'none' }, span, reachesEnd: true }
            : { kind: 'malformed', span, message: `A Kimi tool-call section (${K.sectionBegin}) holds no call.` },
        );
      }
    }
    if (block.payloads.length > 0) {
      if (!block.opened) block.repairs.add('missing_opener');
      if (closed) {
        // A leaked end-of-turn token after the calls leaves with them.
        const after = skipSpace(text, spanEnd);
        if (text.startsWith(K.endOfTurn, after)) {
          spanEnd = after + K.endOfTurn.length;
          block.repairs.add('leaked_sentinel');
        }
      } else if (block.opened) block.repairs.add('missing_closer');
      const unclosed = spanEnd >= text.length && (block.lastOpen || !closed);
      envelopes.push({
        family: 'kimi',
        span: { start: block.start, end: spanEnd },
        strong: true,
        payloads: block.payloads,
        unclosed,
        ...(block.repairs.size > 0 ? { repairs: [...block.repairs] } : {}),
      });
    }
    block = undefined;
  };
  const finish = (contentEnd: number, closer: Token | undefined): void => {
    if (call === undefined) return;
    const read = readCall(text, call, { contentEnd, closer });
    const begin = call.begin;
    call = undefined;
    if (read === undefined) return;
    block ??= newTokenBlock(begin.start, read.end, false);
    block.payloads.push(read.payload);
    block.end = read.end;
    block.lastOpen = read.repair === 'missing_closer';
    if (read.repair !== undefined) block.repairs.add(read.repair);
  };
  for (const token of tokens(text)) {
    if (envelopes.length >= DEFAULT_MAX_ENVELOPES) break;
    switch (token.kind) {
      case 'section_begin':
        finish(token.start, undefined);
        flush(undefined, block?.opened !== true);
        block = newTokenBlock(token.start, token.end, true);
        break;
      case 'call_begin':
        finish(token.start, undefined);
        call = { begin: token };
        break;
      case 'argument_begin':
        if (call !== undefined && call.argument === undefined) call.argument = token;
        break;
      case 'call_end':
        finish(token.start, token);
        break;
      case 'section_end':
        finish(token.start, undefined);
        flush(token.end, true);
        break;
    }
  }
  finish(text.length, undefined);
  flush(undefined, block?.opened !== true);
  return envelopes;
}
