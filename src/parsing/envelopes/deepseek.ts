import { scanRegion } from '../scanner.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, DEFAULT_MAX_TAG_HEAD, makeFinder, skipSpace, trimSpan } from './envelope.ts';
import { brokenCloserEnd, foreignTokens, newTokenBlock, scanTokens, TOKEN_FAMILIES } from './token-families.ts';
import type { FamilyToken, TokenBlock, TokenScan } from './token-families.ts';
import { unreadText } from './unread-text.ts';

/**
 * DeepSeek's special tokens (fullwidth bars, U+2581 as space):
 * V3/R1:
 * <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 * V3.1:   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 * Detokenisers sometimes give ASCII look-alikes (`|`, `_`, space): accepted,
 * except where the spelling is another family's exact token (Kimi's
 * `<|tool_call_begin|>`). A call is read from `<｜tool▁call▁begin｜>`, so a
 * block opener the serving stack ate or a missing closer is a repair.
 */

const D = TOKEN_FAMILIES.deepseek;
const TOKEN_RE = /<[｜|]tool[▁_ ](calls?)[▁_ ](begin|end)[｜|]>|<[｜|]tool[▁_ ]sep[｜|]>/g;
const END_OF_SENTENCE_RE = /<[｜|]end[▁_ ]of[▁_ ]sentence[｜|]>/y;
const FOREIGN = foreignTokens('deepseek');
const FENCE_CLOSE = '```';
/**
 * What follows a block opener the text ends inside before any separator:
 * nothing, or the start of a call's type or name (`get_weather`). Prose after
 * the opener is a sentence naming the token.
 */
const CUT_HEAD_RE = /^\s*(?:[A-Za-z_][\w.:-]*\s*)?$/;

type TokenKind = 'calls_begin' | 'calls_end' | 'call_begin' | 'call_end' | 'sep';

type Token = FamilyToken<TokenKind>;

interface OpenCall {
  begin: Token;
  sep?: Token;
}

/** `calls`/`call` and `begin`/`end` as the token spells them (the regex takes no other words). */
function kindOf(m: RegExpExecArray): TokenKind | undefined {
  if (FOREIGN.has(m[0])) return undefined;
  if (m[1] === undefined) return 'sep';
  const begin = m[2] === 'begin';
  if (m[1] === 'calls') return begin ? 'calls_begin' : 'calls_end';
  return begin ? 'call_begin' : 'call_end';
}

const TOKENS: TokenScan<TokenKind> = { re: TOKEN_RE, kindOf, max: 8 * DEFAULT_MAX_ENVELOPES };

function tokens(text: string): Token[] {
  return scanTokens(text, TOKENS);
}

interface Finders {
  newline: (from: number) => number;
  brace: (from: number) => number;
  fenceLine: (from: number) => number;
}

interface ReadCall {
  payload: Payload;
  end: number;
  /** The arguments' JSON closed (so a closer was due right after it). */
  closed: boolean;
}

function readCall(
  text: string,
  call: OpenCall,
  range: { finders: Finders; contentEnd: number; end: number | undefined },
): ReadCall {
  const { finders, contentEnd } = range;
  const start = call.begin.start;
  const end = range.end ?? contentEnd;
  if (call.sep === undefined)
    return {
      payload: {
        kind: 'malformed',
        span: { start, end },
        message: `A DeepSeek tool call has no ${D.sep} between type and name.`,
      },
      end,
      closed: false,
    };
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
  const reachesEndOfText = contentEnd === text.length && range.end === undefined;
  if (brace < 0 || brace >= contentEnd) {
    return {
      payload: { kind: 'named', name, args: { kind: 'none' }, span: { start, end }, reachesEnd: reachesEndOfText },
      end,
      closed: true,
    };
  }
  let region = scanRegion(text, brace, contentEnd);
  const fenced = !region.closed && text.slice(argsFrom, brace).trim().startsWith(FENCE_CLOSE);
  // JSON strings hold no line breaks, so a line starting with ``` is the closing fence.
  const fenceLine = fenced ? finders.fenceLine(brace) : -1;
  const fenceEnd = fenceLine >= 0 && fenceLine + 1 + FENCE_CLOSE.length <= contentEnd ? fenceLine + 1 : -1;
  // V3's fenced JSON missing its `}`: the arguments end at the closing fence, a slip to repair.
  if (fenceEnd >= 0) region = { ...region, end: trimSpan(text, { start: brace, end: fenceEnd }).end };
  let callEnd = end;
  if (range.end === undefined && region.closed) {
    // No closer: the call ends with its JSON (and the V3 form's closing fence).
    callEnd = region.end;
    const fence = skipSpace(text, callEnd, contentEnd);
    if (text.startsWith(FENCE_CLOSE, fence)) callEnd = fence + FENCE_CLOSE.length;
  }
  if (range.end === undefined && fenceEnd >= 0) callEnd = fenceEnd + FENCE_CLOSE.length;
  if (range.end !== undefined && (region.closed || fenceEnd >= 0)) {
    // `{…}{…}`, or words after the JSON or its fence, before the closer: never a call with the rest dropped.
    let after = skipSpace(text, region.end, contentEnd);
    if (text.startsWith(FENCE_CLOSE, after)) after += FENCE_CLOSE.length;
    const unread = unreadText(text, after, contentEnd);
    if (unread >= 0)
      return {
        payload: {
          kind: 'malformed',
          span: { start: unread, end },
          message:
            `The arguments of the DeepSeek tool call "${name}" are followed by more ` +
            `text: at position ${unread} expected ${D.callEnd} after the JSON object`,
        },
        end,
        closed: true,
      };
  }
  const args = { kind: 'json' as const, span: { start: region.start, end: region.end }, closed: region.closed };
  const reachesEnd = !region.closed && fenceEnd < 0 && reachesEndOfText;
  return {
    payload: { kind: 'named', name, args, span: { start, end: callEnd }, reachesEnd },
    end: callEnd,
    closed: region.closed || fenceEnd >= 0,
  };
}

export function findDeepSeekCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('<｜tool') && !text.includes('<|tool')) return envelopes;
  const finders: Finders = {
    newline: makeFinder(text, '\n'),
    brace: makeFinder(text, '{'),
    fenceLine: makeFinder(text, `\n${FENCE_CLOSE}`),
  };
  let block: TokenBlock | undefined;
  let call: OpenCall | undefined;
  /** Ends the block at `end` (its last call's end when undefined); `closed` when its block closer came. */
  const flush = (end: number | undefined, closed: boolean): void => {
    if (block !== undefined && block.payloads.length === 0 && block.opened) {
      // A block opener with no call: cut right after it, an empty block (an attempt that
      // reads as nothing), or a sentence naming the token (left alone).
      const rest = text.length - block.end;
      const cut =
        skipSpace(text, block.end) >= text.length ||
        (rest <= DEFAULT_MAX_TAG_HEAD && CUT_HEAD_RE.test(text.slice(block.end)));
      if (cut || (closed && end !== undefined)) {
        const span = { start: block.start, end: cut ? text.length : (end ?? block.end) };
        block.end = span.end;
        block.lastOpen = cut;
        block.payloads.push(
          cut
            ? { kind: 'named', name: '', args: { kind: 'none' }, span, reachesEnd: true }
            : { kind: 'malformed', span, message: `A DeepSeek tool-call block (${D.callsBegin}) holds no call.` },
        );
      }
    }
    if (block !== undefined && block.payloads.length > 0) {
      let spanEnd = end ?? block.end;
      if (!block.opened) block.repairs.add('missing_opener');
      if (!closed && block.opened) block.repairs.add('missing_closer');
      // The end-of-reply token a serving stack did not stop on leaves with the calls.
      const after = skipSpace(text, spanEnd);
      END_OF_SENTENCE_RE.lastIndex = after;
      const leaked = END_OF_SENTENCE_RE.exec(text);
      if (leaked !== null) {
        spanEnd = after + leaked[0].length;
        block.repairs.add('leaked_sentinel');
      }
      const unclosed = block.lastOpen && spanEnd >= text.length;
      envelopes.push({
        family: 'deepseek',
        span: { start: block.start, end: spanEnd },
        strong: true,
        payloads: block.payloads,
        unclosed,
        ...(block.repairs.size > 0 ? { repairs: [...block.repairs] } : {}),
      });
    }
    block = undefined;
  };
  /** Ends the open call: its content stops at `contentEnd`; `closer` when its own closer came. */
  const finish = (contentEnd: number, closer: Token | undefined): void => {
    if (call === undefined) return;
    const read = readCall(text, call, { finders, contentEnd, end: closer?.end });
    block ??= newTokenBlock(call.begin.start, read.end, false);
    let end = read.end;
    block.lastOpen = false;
    if (closer === undefined) {
      const broken = read.closed ? brokenCloserEnd(text, skipSpace(text, end, contentEnd), D.callEnd) : -1;
      if (broken >= 0 && broken <= contentEnd) {
        end = broken;
        read.payload.span.end = end;
        block.repairs.add('broken_closer');
      } else {
        block.repairs.add('missing_closer');
        block.lastOpen = contentEnd === text.length;
      }
    }
    block.payloads.push(read.payload);
    block.end = end;
    call = undefined;
  };
  for (const token of tokens(text)) {
    if (envelopes.length >= DEFAULT_MAX_ENVELOPES) break;
    if (token.kind === 'calls_begin') {
      finish(token.start, undefined);
      flush(undefined, block?.opened !== true);
      block = newTokenBlock(token.start, token.end, true);
    } else if (token.kind === 'call_begin') {
      finish(token.start, undefined);
      block ??= newTokenBlock(token.start, token.end, false);
      call = { begin: token };
    } else if (token.kind === 'sep') {
      if (call !== undefined && call.sep === undefined) call.sep = token;
      else if (call === undefined && block?.opened === true) {
        // `<｜tool▁calls▁begin｜>function<｜tool▁sep｜>name…`: the call's own opener is missing;
        // the call starts where the block's last call (or its opener) ended.
        const begin: Token = { kind: 'call_begin', start: block.end, end: block.end };
        call = { begin, sep: token };
        block.repairs.add('missing_opener');
      }
    } else if (token.kind === 'call_end') {
      finish(token.start, token);
    } else {
      finish(token.start, undefined);
      flush(token.end, true);
    }
  }
  finish(text.length, undefined);
  flush(undefined, block?.opened !== true);
  return envelopes;
}
