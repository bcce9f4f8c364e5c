import type { JsonObject } from '../../core/json.ts';
import type { CallFormat } from '../formats/call-format.ts';
import type { RepairKind, Span } from '../types.ts';

/** The syntax a call was written in (one file per family under envelopes/). */
export type EnvelopeFamily =
  | 'tool_call_tag'
  | 'glm'
  | 'qwen3_coder'
  | 'function_tag'
  | 'mistral'
  | 'llama_python_tag'
  | 'deepseek'
  | 'minimax'
  | 'tool_line'
  | 'fence'
  | 'json'
  | 'pythonic'
  | 'deepseek_dsml'
  | 'kimi'
  | 'harmony'
  | 'granite'
  | 'gemma'
  | 'minimax_text'
  | 'xml'
  /** A format given as data (parsing.formats, a chat template): `Envelope.format` names it. */
  | 'format'
  /** Special-token-like markers no family lists, around a declared tool's call (shapes/special-envelope.ts). */
  | 'special_tokens';

/** Arguments of a call whose name the envelope already gave. */
export type NamedArgs =
  /** JSON text; `closed` false when its brackets never closed. */
  { kind: 'json'; span: Span; closed: boolean } | { kind: 'object'; value: JsonObject } | { kind: 'none' };

/** What an envelope holds, still unparsed. */
export type Payload =
  /** One or more JSON values in call shapes (`{name, arguments}`, arrays, `{tool_calls}`…). */
  | { kind: 'json'; span: Span }
  /** Pythonic calls: `[f(a=1), g(b="x")]` or `f(a=1)`. */
  | { kind: 'pythonic'; span: Span }
  /** A call whose name is known; `reachesEnd` when it was still open at the end of the text. */
  /**
   * `cutValue`: an argument's value ran to the end of the text without its own
   * closer (`<parameter=city>Par`): the value may be cut, so the call is
   * `truncated`, never run, even when the reply was not stopped by its length
   * limit. Only the envelope's own closers missing is a `missing_closer` repair.
   */
  | { kind: 'named'; name: string; args: NamedArgs; span: Span; reachesEnd: boolean; cutValue?: boolean }
  /** An envelope whose content reads as nothing. */
  | { kind: 'malformed'; span: Span; message: string }
  /**
   * A call found by a format given as data: `args` is read by the format's
   * grammar, then by every other one (formats/resolve-format-call.ts).
   * `name` is set for a marker name slot; otherwise the name is inside `args`.
   * `after` is the marker the arguments follow, for messages; `cut` when the
   * arguments were still open at the end of the text.
   */
  | { kind: 'format'; format: CallFormat; span: Span; name?: string; args: Span; after: string; cut: boolean }
  /**
   * The body of an envelope of unknown special-token markers: read in every
   * shape and grammar (shapes/special-envelope.ts). `opener` is the marker, for
   * messages; `cut` when the body runs to the end of the text still open.
   */
  | { kind: 'sniffed'; span: Span; opener: string; cut: boolean };

export interface Envelope {
  family: EnvelopeFamily;
  /** What leaves the content when the envelope holds a call or a failed attempt at one. */
  span: Span;
  /** Explicit call syntax (tags, special tokens): a name alone is enough for a call. */
  strong: boolean;
  payloads: Payload[];
  /** The text ended before the envelope's closer. */
  unclosed: boolean;
  /** A fence's info string (` ```json ` → "json"). */
  info?: string;
  /**
   * What was wrong with the envelope itself (a missing opener, a broken
   * closer, namespaced tags…): recorded on every call it yields.
   */
  repairs?: RepairKind[];
  /** The id of the format given as data that found it (family 'format'). */
  format?: string;
}

/**
 * More envelopes of one family than any real reply holds: a finder stops
 * there, so a megabyte of `<tool_call>` costs the same as a few hundred.
 */
export const DEFAULT_MAX_ENVELOPES = 256;

/**
 * `indexOf` for a needle searched again and again from increasing offsets:
 * the answer is cached while it is still ahead, so a closer that never comes
 * is searched for once, not once per opener (which would be quadratic).
 */
export function makeFinder(text: string, needle: string): (from: number) => number {
  let cachedFrom = -1;
  let cached = -1;
  return (from: number): number => {
    if (cachedFrom >= 0 && from >= cachedFrom && (cached < 0 || cached >= from)) return cached;
    cachedFrom = from;
    cached = text.indexOf(needle, from);
    return cached;
  };
}

/** One cached finder per needle, shared by all the nested parsers of one pass over a text. */
export type Finders = (needle: string) => (from: number) => number;

export function createFinders(text: string): Finders {
  const cache = new Map<string, (from: number) => number>();
  return (needle: string) => {
    let finder = cache.get(needle);
    if (finder === undefined) {
      finder = makeFinder(text, needle);
      cache.set(needle, finder);
    }
    return finder;
  };
}

/** A tag's name or attributes never run longer than this (`<function=…>`, `<invoke name="…">`). */
export const DEFAULT_MAX_TAG_HEAD = 300;

/** `indexOf` that looks at most DEFAULT_MAX_TAG_HEAD characters ahead (an unclosed tag costs no full scan). */
export function indexInTagHead(text: string, needle: string, from: number): number {
  const found = text.slice(from, from + DEFAULT_MAX_TAG_HEAD + needle.length).indexOf(needle);
  return found < 0 ? -1 : from + found;
}

export function skipSpace(text: string, from: number, limit: number = text.length): number {
  let i = from;
  while (i < limit) {
    const c = text.charAt(i);
    if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') break;
    i += 1;
  }
  return i;
}

/** The span without its surrounding whitespace. */
export function trimSpan(text: string, span: Span): Span {
  let { start, end } = span;
  start = skipSpace(text, start, end);
  while (end > start && /\s/.test(text.charAt(end - 1))) end -= 1;
  return { start, end };
}
