import type { JsonObject, JsonValue } from '../core/json.ts';
import { DEFAULT_MAX_JSON_DEPTH } from '../core/json-shape.ts';
import { setJsonKey } from '../core/set-json-key.ts';
import { outOfRangeMessage } from './lenient-json.ts';
import type { Span } from './types.ts';

/**
 * Pythonic tool calls, as Llama 3.2/4 and Gemma write them:
 * `[get_weather(city="Paris"), get_time(tz='UTC')]`, with Python literals as
 * values (numbers, '…'/"…" strings, True/False/None, lists, tuples, dicts,
 * sets as lists).
 * Keyword arguments only: positional ones cannot be mapped to names.
 */

export interface PythonicCall {
  name: string;
  arguments: JsonObject;
  span: Span;
}

export type PythonicResult =
  { ok: true; calls: PythonicCall[] } | { ok: false; message: string; position: number; atEnd: boolean };

const NAME_RE = /[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/y;
const IDENT_RE = /[A-Za-z_]\w*/y;
const NUMBER_RE = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
/** `r''`, `b''`, `u''`, `rb''`…: read as strings (f-strings interpolate, so they are not literals). */
const STRING_PREFIX_RE = /(?:[rR][bB]?|[bB][rR]?|[uU])(?=['"])/y;
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\n': '',
};
/** `\\x41`, `\\u00e9`, `\\U0001F600`: how many hex digits follow each letter. */
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };
const OCTAL_RE = /[0-7]{1,3}/y;
const WORDS = new Map<string, JsonValue>([
  ['True', true],
  ['False', false],
  ['None', null],
  ['true', true],
  ['false', false],
  ['null', null],
]);

const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const SPACE_RE = /\s/;

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code > 0x7f && SPACE_RE.test(String.fromCharCode(code)));
}

/** `[A-Za-z_]` (first) or `\w`, as IDENT_RE reads a name. */
function isWordCode(code: number, first: boolean): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    code === 0x5f ||
    (!first && code >= 0x30 && code <= 0x39)
  );
}

class Failure {
  readonly message: string;
  readonly position: number;
  constructor(message: string, position: number) {
    this.message = message;
    this.position = position;
  }
}

class PythonicParser {
  private readonly text: string;
  private readonly end: number;
  pos: number;
  /** The arguments object is level 1, as in the JSON shape limits; the parser recurses once per level. */
  private depth = 1;
  /**
   * Text an envelope bounds (see parseEnvelopedPythonicCalls): '…' strings
   * are the raw value (line breaks, backslashes and quotes as they are) and
   * end only at a quote a value can end at.
   */
  enveloped = false;

  constructor(text: string, start: number, end: number) {
    this.text = text;
    this.pos = start;
    this.end = end;
  }

  private fail(message: string): never {
    throw new Failure(message, this.pos);
  }

  private peek(): string {
    return this.pos < this.end ? this.text.charAt(this.pos) : '';
  }

  /** Skips whitespace; true when it crossed a line break. */
  private skip(): boolean {
    let newline = false;
    while (this.pos < this.end) {
      const c = this.text.charAt(this.pos);
      if (c === '\n') newline = true;
      else if (c !== ' ' && c !== '\t' && c !== '\r') return newline;
      this.pos += 1;
    }
    return newline;
  }

  private expect(c: string): void {
    this.skip();
    if (this.peek() !== c) this.fail(`Expected '${c}'`);
    this.pos += 1;
  }

  private match(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (m === null || m.index + m[0].length > this.end) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  /**
   * With `prefix`, the calls may be followed by other text: reading stops after the list's `]` or the last call that
   * reads.
   */
  parseAll(prefix = false): PythonicCall[] {
    this.skip();
    const bracketed = this.peek() === '[';
    if (bracketed) this.pos += 1;
    const calls: PythonicCall[] = [];
    while (true) {
      const before = this.pos;
      const newline = this.skip();
      const c = this.peek();
      if (c === '' || (bracketed && c === ']')) break;
      if (calls.length > 0) {
        if (c !== ',' && c !== ';' && !newline) {
          if (prefix && !bracketed) return this.stopAt(before, calls);
          this.fail("Expected ',' between calls");
        }
        if (c === ',' || c === ';') this.pos += 1;
        this.skip();
        if (this.peek() === '' || (bracketed && this.peek() === ']')) break;
      }
      if (prefix && !bracketed && calls.length > 0) {
        const call = this.tryCall();
        if (call === undefined) return this.stopAt(before, calls);
        calls.push(call);
      } else calls.push(this.parseCall());
    }
    if (bracketed) this.expect(']');
    if (calls.length === 0) this.fail('No call found');
    if (prefix) return calls;
    this.skip();
    if (this.pos < this.end) this.fail('Unexpected text after the calls');
    return calls;
  }

  private stopAt(pos: number, calls: PythonicCall[]): PythonicCall[] {
    this.pos = pos;
    return calls;
  }

  /** A further unbracketed call, or undefined (and no move) when the text after the last one is not a call. */
  private tryCall(): PythonicCall | undefined {
    const start = this.pos;
    try {
      return this.parseCall();
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      this.pos = start;
      this.depth = 1;
      return undefined;
    }
  }

  private parseCall(): PythonicCall {
    const start = this.pos;
    const dotted = this.match(NAME_RE);
    if (dotted === undefined) this.fail('Expected a function name');
    // Llama's built-in tools are written `brave_search.call(query=…)`.
    const name = dotted.endsWith('.call') ? dotted.slice(0, -'.call'.length) : dotted;
    this.expect('(');
    const args: JsonObject = {};
    while (true) {
      this.skip();
      if (this.peek() === ')') break;
      const key = this.match(IDENT_RE);
      this.skip();
      if (key === undefined || this.peek() !== '=') this.fail('Expected a keyword argument (name=value)');
      this.pos += 1;
      setJsonKey(args, key, this.parseValue());
      this.skip();
      if (this.peek() === ',') this.pos += 1;
      else if (this.peek() !== ')') this.fail("Expected ',' or ')'");
    }
    this.pos += 1;
    return { name, arguments: args, span: { start, end: this.pos } };
  }

  private parseValue(): JsonValue {
    this.skip();
    const c = this.peek();
    if (c === '') this.fail('Unexpected end: a value is missing');
    if (c === '"' || c === "'") return this.parseString(c, false);
    const prefix = this.match(STRING_PREFIX_RE);
    if (prefix !== undefined) return this.parseString(this.peek(), /r/i.test(prefix));
    if (c === '[' || c === '(') return this.parseSequence(c === '[' ? ']' : ')');
    if (c === '{') return this.parseDict();
    const start = this.pos;
    const number = this.match(NUMBER_RE);
    if (number !== undefined) {
      const value = Number(number);
      if (Number.isFinite(value)) return value;
      this.pos = start;
      this.fail(outOfRangeMessage(number));
    }
    const word = this.match(IDENT_RE);
    if (word !== undefined && WORDS.has(word)) return WORDS.get(word) ?? null;
    return this.fail(
      word === undefined ? `Unexpected character '${c}'` : `Unexpected name '${word}': string values need quotes`,
    );
  }

  private nest(): void {
    this.depth += 1;
    if (this.depth > DEFAULT_MAX_JSON_DEPTH) this.fail(`Value nested deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`);
    this.pos += 1;
  }

  private parseSequence(closer: string): JsonValue[] {
    this.nest();
    const items: JsonValue[] = [];
    while (true) {
      this.skip();
      if (this.peek() === closer) break;
      items.push(this.parseValue());
      this.skip();
      if (this.peek() === ',') this.pos += 1;
      else if (this.peek() !== closer) this.fail(`Expected ',' or '${closer}'`);
    }
    this.pos += 1;
    this.depth -= 1;
    return items;
  }

  /** A dict, or a set (`{'a', 'b'}`: an item then `,` or `}`, not `:`), read as a list. */
  private parseDict(): JsonObject | JsonValue[] {
    this.nest();
    const dict: JsonObject = {};
    for (let first = true; ; first = false) {
      this.skip();
      if (this.peek() === '}') break;
      const keyAt = this.pos;
      const key = this.parseValue();
      this.skip();
      if (first && (this.peek() === ',' || this.peek() === '}')) return this.parseSetItems(key, keyAt);
      if (typeof key !== 'string' && typeof key !== 'number') this.fail('Dict keys must be strings');
      this.expect(':');
      setJsonKey(dict, String(key), this.parseValue());
      this.skip();
      if (this.peek() === ',') this.pos += 1;
      else if (this.peek() !== '}') this.fail("Expected ',' or '}'");
    }
    this.pos += 1;
    this.depth -= 1;
    return dict;
  }

  /**
   * The rest of a set after its first item, as a list in the written order
   * (a set has none; this one keeps the model's). A repeated item is one item,
   * as in Python; a list or dict item is an error, as in Python (unhashable).
   */
  private parseSetItems(first: JsonValue, firstAt: number): JsonValue[] {
    const items: JsonValue[] = [];
    const seen = new Set<string>();
    const add = (item: JsonValue, at: number): void => {
      const opener = this.text.charAt(at);
      if (opener === '[' || opener === '{') {
        this.pos = at;
        this.fail('A set cannot hold a list or a dict (unhashable)');
      }
      const key = JSON.stringify(item);
      if (seen.has(key)) return;
      seen.add(key);
      items.push(item);
    };
    add(first, firstAt);
    while (this.peek() === ',') {
      this.pos += 1;
      this.skip();
      if (this.peek() === '}') break;
      const at = this.pos;
      const item = this.parseValue();
      this.skip();
      if (this.peek() === ':') this.fail("Expected ',' or '}': a set and a dict are mixed");
      add(item, at);
    }
    if (this.peek() !== '}') this.fail("Expected ',' or '}'");
    this.pos += 1;
    this.depth -= 1;
    return items;
  }

  private parseString(quote: string, raw: boolean): string {
    const triple = this.text.startsWith(quote.repeat(3), this.pos);
    const closer = triple ? quote.repeat(3) : quote;
    this.pos += closer.length;
    // Text is copied from the input a segment at a time (only escapes cut it): a long value stays linear and cheap.
    let out = '';
    let segment = this.pos;
    const quoteCode = quote.charCodeAt(0);
    while (true) {
      let at = this.pos;
      for (
        let code = this.text.charCodeAt(at);
        at < this.end && code !== quoteCode && code !== BACKSLASH && code !== NEWLINE;
        code = this.text.charCodeAt(at)
      )
        at += 1;
      this.pos = at;
      if (this.pos >= this.end) this.fail('Unexpected end inside a string');
      const c = this.text.charAt(this.pos);
      if (this.text.startsWith(closer, this.pos) && (triple || !this.enveloped || this.endsValue(this.pos + 1))) {
        out += this.text.slice(segment, this.pos);
        this.pos += closer.length;
        return out;
      }
      // In an envelope, templates write '…' around the value as it is: there a backslash is itself.
      if (c === '\\' && !(this.enveloped && quote === "'" && !triple)) {
        // A raw string keeps its backslashes, yet `\'` still does not end it (Python's rule).
        if (this.pos + 1 >= this.end) {
          this.pos = this.end;
          this.fail('Unexpected end inside a string');
        }
        if (raw) this.pos += 2;
        else {
          out += this.text.slice(segment, this.pos) + this.escape();
          segment = this.pos;
        }
        continue;
      }
      if (c === '\n' && !triple && !this.enveloped) this.fail('Line break inside a string');
      this.pos += 1;
    }
  }

  /**
   * Whether a value may end at `at`: only space, then a closing bracket, `:`,
   * the end, or a `,` and what starts the next item (`key=`, `name(`, a value).
   */
  private endsValue(at: number): boolean {
    const i = this.skipFrom(at);
    if (i >= this.end || ')]}:'.includes(this.text.charAt(i))) return true;
    if (this.text.charAt(i) !== ',') return false;
    const j = this.skipFrom(i + 1);
    if (j >= this.end || /['"[{(0-9.+-]/.test(this.text.charAt(j))) return true;
    // Checked without a match object: this runs at every quote inside a raw value.
    let k = j;
    while (k < this.end && isWordCode(this.text.charCodeAt(k), k === j)) k += 1;
    if (k === j) return false;
    const next = this.text.charAt(this.skipFrom(k));
    return next === '=' || next === '(' || (k - j <= 5 && WORDS.has(this.text.slice(j, k)));
  }

  private skipFrom(from: number): number {
    let i = from;
    while (i < this.end && isSpace(this.text.charCodeAt(i))) i += 1;
    return i;
  }

  /** The escape sequence at `pos` (a backslash), decoded as Python does; unknown ones stay as written. */
  private escape(): string {
    const next = this.text.charAt(this.pos + 1);
    const simple = ESCAPES[next];
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    const digits = HEX_ESCAPES[next];
    if (digits !== undefined) {
      const hex = this.text.slice(this.pos + 2, Math.min(this.end, this.pos + 2 + digits));
      const code = hex.length === digits && /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : -1;
      if (code >= 0 && code <= 0x10ffff) {
        this.pos += 2 + digits;
        return String.fromCodePoint(code);
      }
    }
    OCTAL_RE.lastIndex = this.pos + 1;
    const octal = OCTAL_RE.exec(this.text);
    if (octal !== null && this.pos + 1 + octal[0].length <= this.end) {
      this.pos += 1 + octal[0].length;
      return String.fromCharCode(Number.parseInt(octal[0], 8));
    }
    this.pos += 2;
    return `\\${next}`;
  }
}

/** Reads pythonic calls filling `text[start, end)` entirely. Never throws. */
export function parsePythonicCalls(text: string, start: number = 0, end: number = text.length): PythonicResult {
  return runParser(new PythonicParser(text, start, end), { start, end });
}

function runParser(parser: PythonicParser, bounds: { start: number; end: number }): PythonicResult {
  const { start, end } = bounds;
  try {
    return { ok: true, calls: parser.parseAll() };
  } catch (error) {
    const position = error instanceof Failure ? error.position : start;
    const message = error instanceof Failure ? error.message : 'Unreadable call';
    return { ok: false, message, position, atEnd: position >= end };
  }
}

/**
 * Like parsePythonicCalls, for text an envelope bounds (`<|tool_call_start|>[…]<|tool_call_end|>`):
 * templates that write string values as they are (LFM2: `'…'` around the raw
 * text) leave line breaks, backslashes and quotes unescaped inside them: such
 * a string is read raw, and a quote ends it only where a value can end (before
 * `,` `)` `]` `}` `:`). "…" strings keep their escapes (nested values are
 * JSON). In open prose a line break still ends a runaway string.
 */
export function parseEnvelopedPythonicCalls(text: string, start: number, end: number): PythonicResult {
  const parser = new PythonicParser(text, start, end);
  parser.enveloped = true;
  return runParser(parser, { start, end });
}

/**
 * Pythonic calls filling a body an envelope bounds, in a format not known:
 * read as Python first (escapes decoded: `'Martha\'s'`), and only text that
 * is not valid Python is read raw (parseEnvelopedPythonicCalls: inner quotes
 * that cannot end the value, line breaks). Of two failures, the one that read
 * further is returned. Never throws.
 */
export function parseBoundedPythonicCalls(text: string, start: number, end: number): PythonicResult {
  const python = parsePythonicCalls(text, start, end);
  if (python.ok) return python;
  const raw = parseEnvelopedPythonicCalls(text, start, end);
  return raw.ok || raw.position > python.position ? raw : python;
}

/**
 * Where the pythonic calls starting at `start` end when other text may follow
 * them (a bracketed list ends at its `]`, unbracketed calls at the last one
 * that reads), or -1 when no call reads there. Never throws.
 */
export function pythonicCallsEnd(text: string, start: number, end: number = text.length): number {
  const parser = new PythonicParser(text, start, end);
  try {
    parser.parseAll(true);
    return parser.pos;
  } catch {
    return -1;
  }
}

/** Cheap test: does `text[start…]` begin like `name(` or `[name(`? */
export function looksPythonic(text: string, start: number, end: number = text.length): boolean {
  let i = start;
  while (i < end && /\s/.test(text.charAt(i))) i += 1;
  if (text.charAt(i) === '[') i += 1;
  while (i < end && /\s/.test(text.charAt(i))) i += 1;
  NAME_RE.lastIndex = i;
  const m = NAME_RE.exec(text);
  return m !== null && m.index === i && text.charAt(i + m[0].length) === '(';
}
