import type { JsonObject, JsonValue } from '../../core/json.ts';
import { setJsonKey } from '../../core/set-json-key.ts';
import { parseLenient } from '../lenient-json.ts';
import { scanRegion } from '../scanner.ts';
import type { RepairKind } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, DEFAULT_MAX_TAG_HEAD, makeFinder, skipSpace } from './envelope.ts';
import { brokenCloserEnd, TOKEN_FAMILIES } from './token-families.ts';

/**
 * MiniMax's plain-text fallback call:
 * [TOOL_CALL]
 * {tool => "get_weather", args => {
 *   --city "Paris"
 *   --days 3
 * }}
 * [/TOOL_CALL]
 * Values after `--key` are quoted strings or bare numbers, booleans or JSON.
 * `{tool => "…"` at the start of a line is enough when the opener is missing;
 * `args => {"city": "Paris"}` (a JSON object, keys quoted or not) reads too.
 */

const M = TOKEN_FAMILIES.minimaxText;
const HEAD_RE = /\{[ \t]*tool[ \t]*=>[ \t]*/g;
const HEAD_AT_RE = new RegExp(HEAD_RE.source, 'y');
const ARGS_RE = /,[ \t]*args[ \t]*=>[ \t]*/y;
const KEY_RE = /[A-Za-z_][\w.-]*/y;

class Failure {
  readonly message: string;
  readonly position: number;
  readonly atEnd: boolean;
  constructor(message: string, position: number, atEnd: boolean) {
    this.message = message;
    this.position = position;
    this.atEnd = atEnd;
  }
}

interface Read {
  name: string;
  args: { kind: 'object'; value: JsonObject } | { kind: 'json'; span: { start: number; end: number }; closed: boolean };
  /** Where the call's `}}` ended, or where the text ended. */
  end: number;
  atEnd: boolean;
}

/** Bare values: JSON when they parse strictly (3, true, null), else the text. */
function bareValue(raw: string): JsonValue {
  const parsed = parseLenient(raw, { allowCloseAtEnd: false });
  return parsed.ok && parsed.repairs.length === 0 ? parsed.value : raw;
}

function readQuoted(text: string, pos: number): { value: string; end: number; closed: boolean } {
  const quote = text.charAt(pos);
  let i = pos + 1;
  while (i < text.length && text.charAt(i) !== quote) i += text.charAt(i) === '\\' ? 2 : 1;
  if (i >= text.length) return { value: text.slice(pos + 1), end: text.length, closed: false };
  const raw = text.slice(pos, i + 1);
  let value = raw.slice(1, -1);
  if (quote === '"') {
    const parsed = parseLenient(raw, { allowCloseAtEnd: false });
    if (parsed.ok && typeof parsed.value === 'string') value = parsed.value;
  }
  return { value, end: i + 1, closed: true };
}

/** `{path: "x"}`, `{'a': 1}`: an object the lenient JSON reader takes (keys quoted or not, values JSON). */
function readsAsObject(text: string, region: { start: number; end: number; closed: boolean }): boolean {
  if (text.charAt(skipSpace(text, region.start + 1, region.end)) === '}') return false;
  const parsed = parseLenient(text.slice(region.start, region.end), { allowCloseAtEnd: !region.closed });
  return parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value);
}

/** `--key value` lines up to the closing `}`. */
function readDashedArgs(text: string, from: number): { args: JsonObject; end: number; atEnd: boolean } {
  const args: JsonObject = {};
  let pos = from;
  while (true) {
    pos = skipSpace(text, pos);
    if (pos >= text.length) return { args, end: pos, atEnd: true };
    if (text.charAt(pos) === '}') return { args, end: pos + 1, atEnd: false };
    if (!text.startsWith('--', pos)) throw new Failure('expected "--key value" or "}"', pos, false);
    KEY_RE.lastIndex = pos + 2;
    const key = KEY_RE.exec(text)?.[0];
    if (key === undefined) throw new Failure('expected a parameter name after "--"', pos + 2, pos + 2 >= text.length);
    pos += 2 + key.length;
    while (text.charAt(pos) === ' ' || text.charAt(pos) === '\t') pos += 1;
    const c = text.charAt(pos);
    if (c === '"' || c === "'") {
      const quoted = readQuoted(text, pos);
      setJsonKey(args, key, quoted.value);
      if (!quoted.closed) return { args, end: text.length, atEnd: true };
      pos = quoted.end;
    } else if (c === '{' || c === '[') {
      const region = scanRegion(text, pos);
      setJsonKey(args, key, bareValue(text.slice(region.start, region.end)));
      if (!region.closed) return { args, end: region.end, atEnd: true };
      pos = region.end;
    } else {
      let end = pos;
      while (end < text.length && text.charAt(end) !== '\n' && text.charAt(end) !== '}') end += 1;
      const raw = text.slice(pos, end).trim();
      // A flag with no value is a true boolean (`--verbose`).
      setJsonKey(args, key, raw === '' ? true : bareValue(raw));
      pos = end;
    }
  }
}

/** The call after its `{tool =>` head. */
function readCall(text: string, headEnd: number): Read {
  const quote = text.charAt(headEnd);
  if (quote !== '"' && quote !== "'")
    throw new Failure('expected the tool name in quotes after "tool =>"', headEnd, headEnd >= text.length);
  const close = text.slice(headEnd + 1, headEnd + 1 + DEFAULT_MAX_TAG_HEAD).indexOf(quote);
  if (close < 0)
    throw new Failure('the tool name is not closed', headEnd, headEnd + 1 + DEFAULT_MAX_TAG_HEAD >= text.length);
  const name = text.slice(headEnd + 1, headEnd + 1 + close).trim();
  let pos = headEnd + close + 2;
  ARGS_RE.lastIndex = pos;
  const args = ARGS_RE.exec(text);
  if (args === null) {
    // `{tool => "name"}`: a call with no arguments.
    const after = skipSpace(text, pos);
    if (text.charAt(after) === '}') return { name, args: { kind: 'object', value: {} }, end: after + 1, atEnd: false };
    throw new Failure('expected ", args => {…}" after the tool name', pos, skipSpace(text, pos) >= text.length);
  }
  pos += args[0].length;
  if (text.charAt(pos) !== '{') throw new Failure('expected "{" after "args =>"', pos, pos >= text.length);
  const first = skipSpace(text, pos + 1);
  let read: Read;
  const region = text.charAt(first) === '-' ? undefined : scanRegion(text, pos);
  if (region !== undefined && (text.charAt(first) === '"' || readsAsObject(text, region))) {
    read = {
      name,
      args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed },
      end: region.end,
      atEnd: !region.closed,
    };
  } else {
    const dashed = readDashedArgs(text, pos + 1);
    read = { name, args: { kind: 'object', value: dashed.args }, end: dashed.end, atEnd: dashed.atEnd };
  }
  if (read.atEnd) return read;
  const outer = skipSpace(text, read.end);
  if (text.charAt(outer) === '}') return { ...read, end: outer + 1 };
  if (outer >= text.length) return { ...read, atEnd: true };
  throw new Failure('expected "}" to close the call', outer, false);
}

/** Is `at` the first non-blank character of its line? */
function startsLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0 && i >= at - DEFAULT_MAX_TAG_HEAD; i -= 1) {
    const c = text.charAt(i);
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t') return false;
  }
  return at <= DEFAULT_MAX_TAG_HEAD;
}

interface Finders {
  open: (from: number) => number;
  close: (from: number) => number;
}

/** The closer of the call opened before `from`, unless the next call opens first. */
function closerOf(finders: Finders, from: number): number {
  const close = finders.close(from);
  const nextOpen = finders.open(from);
  return close >= 0 && (nextOpen < 0 || close < nextOpen) ? close : -1;
}

function envelopeAt(
  text: string,
  at: { start: number; head: number; headEnd: number; opened: boolean },
  finders: Finders,
): Envelope {
  const repairs = new Set<RepairKind>();
  if (!at.opened) repairs.add('missing_opener');
  let payload: Payload;
  let end: number;
  let unclosed: boolean;
  try {
    const read = readCall(text, at.headEnd);
    end = read.end;
    const reachesEnd = read.atEnd && read.end >= text.length;
    unclosed = reachesEnd;
    payload = { kind: 'named', name: read.name, args: read.args, span: { start: at.start, end }, reachesEnd };
    const after = skipSpace(text, end);
    if (text.startsWith(M.close, after)) end = after + M.close.length;
    else {
      const broken = brokenCloserEnd(text, after, M.close);
      if (broken >= 0) {
        end = broken;
        repairs.add('broken_closer');
      } else repairs.add('missing_closer');
    }
    payload.span.end = end;
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    // Without an opener, a later closer may be another call's: the attempt ends where reading failed.
    const close = at.opened ? closerOf(finders, at.head) : -1;
    end = close >= 0 ? close + M.close.length : error.atEnd ? text.length : Math.max(error.position, at.headEnd);
    unclosed = error.atEnd && close < 0;
    const span = { start: at.start, end };
    payload =
      error.atEnd && close < 0
        ? { kind: 'named', name: '', args: { kind: 'none' }, span, reachesEnd: true }
        : {
            kind: 'malformed',
            span,
            message: `Could not read the MiniMax call at position ${error.position}: ${error.message}.`,
          };
  }
  return {
    family: 'minimax_text',
    span: { start: at.start, end },
    strong: true,
    payloads: [payload],
    unclosed,
    ...(repairs.size > 0 ? { repairs: [...repairs] } : {}),
  };
}

export function findMinimaxTextCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('tool') || !text.includes('=>')) {
    if (!text.includes(M.open)) return envelopes;
  }
  const finders: Finders = { open: makeFinder(text, M.open), close: makeFinder(text, M.close) };
  const heads: number[] = [];
  for (const m of text.matchAll(HEAD_RE)) {
    if (heads.length >= 4 * DEFAULT_MAX_ENVELOPES) break;
    heads.push(m.index);
  }
  let next = 0;
  let pos = 0;
  while (envelopes.length < DEFAULT_MAX_ENVELOPES) {
    while (next < heads.length && (heads[next] ?? 0) < pos) next += 1;
    const open = finders.open(pos);
    const head = heads[next] ?? -1;
    if (open < 0 && head < 0) break;
    let env: Envelope;
    if (open >= 0 && (head < 0 || open < head)) {
      const after = skipSpace(text, open + M.open.length);
      HEAD_AT_RE.lastIndex = after;
      const m = HEAD_AT_RE.exec(text);
      if (m !== null) {
        env = envelopeAt(text, { start: open, head: after, headEnd: after + m[0].length, opened: true }, finders);
      } else {
        const close = closerOf(finders, open + M.open.length);
        const end = close >= 0 ? close + M.close.length : open + M.open.length;
        const span = { start: open, end };
        const atEnd = after >= text.length;
        env = {
          family: 'minimax_text',
          span,
          strong: true,
          payloads: [
            atEnd
              ? { kind: 'named', name: '', args: { kind: 'none' }, span, reachesEnd: true }
              : {
                  kind: 'malformed',
                  span,
                  message: `Nothing after ${M.open} reads as {tool => "<name>", args => {…}}.`,
                },
          ],
          unclosed: atEnd,
        };
      }
    } else {
      next += 1;
      // Without its opener, only a head that starts a line is taken: `{tool => …}` mid-sentence is prose.
      if (!startsLine(text, head)) continue;
      HEAD_AT_RE.lastIndex = head;
      const m = HEAD_AT_RE.exec(text);
      env = envelopeAt(text, { start: head, head, headEnd: head + (m?.[0].length ?? 0), opened: false }, finders);
    }
    envelopes.push(env);
    pos = Math.max(env.span.end, env.span.start + 1);
  }
  return envelopes;
}
