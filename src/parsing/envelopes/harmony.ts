import { scanRegion } from '../scanner.ts';
import type { RepairKind, Span } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, DEFAULT_MAX_TAG_HEAD, skipSpace, trimSpan } from './envelope.ts';
import { brokenCloserEnd, TOKEN_FAMILIES, tokenScanner } from './token-families.ts';
import type { FamilyToken } from './token-families.ts';
import { unreadText } from './unread-text.ts';

/**
 * GPT-OSS Harmony messages: `<|start|>assistant<|channel|>commentary
 * to=functions.get_weather <|constrain|>json<|message|>{…}<|call|>`. A message
 * is read from its `<|message|>` back to its header, so a header whose
 * `<|start|>assistant` the serving stack stripped (the prompt ends with it)
 * still reads. A message with a recipient (`to=`) is a call; `analysis`
 * messages are reasoning (an envelope with no payload, so nothing in them is
 * read as a call); `final` and preamble messages stay in the text, and
 * harmonyContent says which of it is the reply's content. Tool results
 * (`<|start|>functions.x to=assistant…`) are data, never calls.
 */

const H = TOKEN_FAMILIES.harmony;

type TokenKind = 'start' | 'channel' | 'constrain' | 'message' | 'terminator';

const KINDS = new Map<string, TokenKind>([
  [H.start, 'start'],
  [H.channel, 'channel'],
  [H.constrain, 'constrain'],
  [H.message, 'message'],
  [H.call, 'terminator'],
  [H.end, 'terminator'],
  [H.return, 'terminator'],
]);

const tokens = tokenScanner(KINDS, 16 * DEFAULT_MAX_ENVELOPES);
const RECIPIENT_RE = /(?:^|[\s>])to=([^\s<]+)/;
const WORD_RE = /^\s*([^\s<]+)/;
/** `to=functions.x` written before `<|channel|>` with no `<|start|>`: where the header begins. */
const LEADING_RECIPIENT_RE = /(?:^|\s)((?:assistant\s+)?to=[^\s<]+\s*)$/;
/** Recipients that address a person, not a tool. */
const NOT_TOOLS = new Set(['assistant', 'user', 'all']);

type Token = FamilyToken<TokenKind>;

interface Header {
  start: number;
  opened: boolean;
  role: string | undefined;
  channel: string | undefined;
  recipient: string | undefined;
}

interface Body {
  header: Header;
  start: number;
}

/** The header before a `<|message|>` at `messageAt`, or undefined when nothing there reads as one. */
function readHeader(
  text: string,
  messageAt: number,
  found: { from: number; start: Token | undefined; channel: Token | undefined },
): Header | undefined {
  const floor = Math.max(found.from, messageAt - DEFAULT_MAX_TAG_HEAD);
  let start: number;
  let role: string | undefined;
  if (found.start !== undefined && found.start.start >= floor) {
    start = found.start.start;
    role = WORD_RE.exec(text.slice(found.start.end, messageAt))?.[1];
  } else if (found.channel !== undefined && found.channel.start >= floor) {
    start = found.channel.start;
    const leading = LEADING_RECIPIENT_RE.exec(text.slice(floor, start));
    if (leading?.[1] !== undefined) start -= leading[1].length;
  } else return undefined;
  const head = text.slice(start, messageAt);
  const channelAt = found.channel !== undefined && found.channel.start >= start ? found.channel.end : -1;
  const channel = channelAt < 0 ? undefined : WORD_RE.exec(text.slice(channelAt, messageAt))?.[1];
  const recipient = RECIPIENT_RE.exec(head)?.[1];
  return { start, opened: found.start !== undefined && start === found.start.start, role, channel, recipient };
}

function callEnvelope(text: string, body: Body, closing: { bodyEnd: number; terminator: Token | undefined }): Envelope {
  const { header } = body;
  const { bodyEnd, terminator } = closing;
  const name = header.recipient ?? '';
  const repairs = new Set<RepairKind>();
  if (!header.opened) repairs.add('missing_opener');
  const content = trimSpan(text, { start: body.start, end: bodyEnd });
  const atTextEnd = terminator === undefined && bodyEnd === text.length;
  let end = terminator?.end ?? content.end;
  let closed = true;
  let payload: Payload;
  if (content.start >= content.end) {
    payload = {
      kind: 'named',
      name,
      args: { kind: 'none' },
      span: { start: header.start, end },
      reachesEnd: atTextEnd,
    };
  } else if (text.charAt(content.start) === '{') {
    const region = scanRegion(text, content.start, bodyEnd);
    closed = region.closed;
    if (terminator === undefined) end = region.closed ? region.end : content.end;
    const unread = terminator !== undefined && region.closed ? unreadText(text, region.end, bodyEnd) : -1;
    payload =
      unread >= 0
        ? {
            kind: 'malformed',
            span: { start: unread, end },
            message:
              `The arguments of the Harmony call to "${name}" are followed by more ` +
              `text: at position ${unread} expected ${H.call} right after the JSON object`,
          }
        : {
            kind: 'named',
            name,
            args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed },
            span: { start: header.start, end },
            reachesEnd: atTextEnd && !region.closed,
          };
  } else {
    payload = {
      kind: 'malformed',
      span: { start: header.start, end },
      message: `The arguments of the Harmony call to "${name}" are not a JSON object.`,
    };
  }
  if (terminator === undefined) {
    const broken = closed ? brokenCloserEnd(text, skipSpace(text, end, bodyEnd), H.call) : -1;
    if (broken >= 0 && broken <= bodyEnd) {
      end = broken;
      payload = { ...payload, span: { start: header.start, end } };
      repairs.add('broken_closer');
    } else repairs.add('missing_closer');
  } else if (text.slice(terminator.start, terminator.end) !== H.call) {
    // A call ends with <|call|>; <|end|> or <|return|> there is the wrong closer.
    repairs.add('broken_closer');
  }
  return {
    family: 'harmony',
    span: { start: header.start, end },
    strong: true,
    payloads: [payload],
    unclosed: atTextEnd,
    ...(repairs.size > 0 ? { repairs: [...repairs] } : {}),
  };
}

/** Reasoning, tool results and other people's messages: opaque, holding no call. */
function silentEnvelope(span: Span, unclosed: boolean): Envelope {
  return { family: 'harmony', span, strong: true, payloads: [], unclosed };
}

interface Message {
  header: Header;
  /**
   * Where the body starts (after `<|message|>`) and ends (at its terminator, the next header or the end of the text).
   */
  body: Span;
  terminator: Token | undefined;
}

/** The messages of a Harmony text, in order, each with its header. */
function readMessages(text: string): Message[] {
  const messages: Message[] = [];
  let from = 0;
  let start: Token | undefined;
  let channel: Token | undefined;
  let body: Body | undefined;
  const close = (bodyEnd: number, terminator: Token | undefined): void => {
    if (body !== undefined)
      messages.push({ header: body.header, body: { start: body.start, end: bodyEnd }, terminator });
    body = undefined;
  };
  const newHeader = (at: number): void => {
    from = at;
    start = undefined;
    channel = undefined;
  };
  for (const token of tokens(text)) {
    if (token.kind === 'start') {
      close(token.start, undefined);
      newHeader(token.start);
      start = token;
    } else if (token.kind === 'channel') {
      if (body !== undefined) {
        // A new header while a message is still open: the message lost its closer.
        close(token.start, undefined);
        newHeader(token.start);
      }
      channel ??= token;
    } else if (token.kind === 'message') {
      if (body !== undefined) continue;
      const header = readHeader(text, token.start, { from, start, channel });
      if (header !== undefined) body = { header, start: token.end };
    } else if (token.kind === 'terminator') {
      close(token.start, token);
      newHeader(token.end);
    }
  }
  close(text.length, undefined);
  return messages;
}

const isCall = (header: Header): boolean => header.recipient !== undefined && !NOT_TOOLS.has(header.recipient);
const isOthers = (header: Header): boolean => header.role !== undefined && header.role !== 'assistant';

export function findHarmonyCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes(H.message)) return envelopes;
  for (const { header, body, terminator } of readMessages(text)) {
    if (envelopes.length >= DEFAULT_MAX_ENVELOPES) break;
    const end = terminator?.end ?? body.end;
    const unclosed = terminator === undefined && body.end === text.length;
    if (isOthers(header)) envelopes.push(silentEnvelope({ start: header.start, end }, unclosed));
    else if (isCall(header))
      envelopes.push(callEnvelope(text, { header, start: body.start }, { bodyEnd: body.end, terminator }));
    else if (header.channel === 'analysis') envelopes.push(silentEnvelope({ start: header.start, end }, unclosed));
  }
  return envelopes;
}

/**
 * What a Harmony reply says to the user and what it thought: the content is
 * the text of its `final` messages only, the reasoning that of its `analysis`
 * messages. Calls, tool results, preambles and the tokens themselves are in
 * neither. Undefined when the text holds no Harmony channel token (it is not
 * a Harmony reply).
 */
export function harmonyContent(text: string): { content: string; reasoning: string } | undefined {
  if (!text.includes(H.channel) || !tokens(text).some((token) => token.kind === 'channel')) return undefined;
  const content: string[] = [];
  const reasoning: string[] = [];
  for (const { header, body } of readMessages(text)) {
    if (isOthers(header) || isCall(header)) continue;
    const piece = text.slice(body.start, body.end).trim();
    if (piece === '') continue;
    if (header.channel === 'final') content.push(piece);
    else if (header.channel === 'analysis') reasoning.push(piece);
  }
  return { content: content.join('\n\n'), reasoning: reasoning.join('\n\n') };
}
