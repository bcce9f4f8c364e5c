import { isJsonObject } from '../core/json.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import type { JsonShapeProblem } from '../core/json-shape.ts';
import { setJsonKey } from '../core/set-json-key.ts';
import {
  JSON_LITERALS,
  KEY_RE,
  LITERAL_LAYOUT,
  MAX_EXTRA_BRACES,
  OTHER_CLOSER,
  PYTHON_LITERALS,
  WORD_RE,
  closesString,
} from './lenient-lookahead.ts';
import type { Place } from './lenient-lookahead.ts';
import type { RepairKind } from './types.ts';

/**
 * A JSON reader that also accepts what models write instead of JSON: comments,
 * trailing commas, single quotes, unquoted keys, Python literals, raw control
 * characters and invalid escapes in strings, and (when allowed) brackets
 * left open at the very end — only right after a value that ends itself (a
 * closed string, `}`, `]`, a literal): a cut string, a number the text ends
 * on, a key without its value, or a `{`, `[` or `,` with nothing after it is
 * a cut, never closed. Extended reads also take unescaped
 * quotes inside strings, Python triple-quoted strings, a closer missing before
 * the enclosing container's closer, literal `\n` `\t` `\r` written between
 * tokens and doubled (template-escaped) braces. It records every repair it
 * makes and never invents a value: a key without a value, or a bare word, is
 * an error. Bounded: nesting past `maxDepth` and numbers out of a 64-bit
 * float's range are failures at their position, never a stack overflow or an
 * Infinity. Linear time: the look-ahead that decides whether a quote ends a
 * string stops at the next quote.
 */

export interface LenientOptions {
  /** Close brackets left open at the very end of the text (after a complete value only). */
  allowCloseAtEnd: boolean;
  /** Containers nested inside each other (the top level is depth 1). Default DEFAULT_MAX_READ_DEPTH. */
  maxDepth?: number;
  /**
   * Also repair what breaks tool arguments (see above). Off by default: the
   * repairs only fire where a plain read fails, but the quote look-ahead reads
   * some broken texts differently, so callers try a plain read first.
   */
  extended?: boolean;
}

/** Which limit a failure hit, when it is a limit and not a syntax error. */
export type ReadLimit = Exclude<JsonShapeProblem['code'], 'too_large'>;

export type LenientFailure = { ok: false; message: string; position: number; atEnd: boolean; limit?: ReadLimit };

export type LenientResult =
  { ok: true; value: JsonValue; repairs: RepairKind[]; closedAtEnd: boolean } | LenientFailure;

/** Several top-level values in a row; `starts` are their offsets in the text. */
export type LenientObjectsResult =
  { ok: true; values: JsonValue[]; starts: number[]; repairs: RepairKind[]; closedAtEnd: boolean } | LenientFailure;

/**
 * How deep any JSON read from model text may nest: the arguments' own limit
 * (DEFAULT_MAX_JSON_DEPTH in core, 64) plus ample room for the envelopes
 * around them (`{"tool_calls": [{"function": {"arguments": …}}]}`). Deeper
 * input is an attack or garbage; the arguments are checked against their own
 * limit once read.
 */
export const DEFAULT_MAX_READ_DEPTH = 128;
/** Longest number literal quoted back in a message. */
const MAX_QUOTED_NUMBER = 24;

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4_RE = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class ParseFailure {
  readonly message: string;
  readonly position: number;
  readonly limit: ReadLimit | undefined;
  constructor(message: string, position: number, limit?: ReadLimit) {
    this.message = message;
    this.position = position;
    this.limit = limit;
  }
}

/** The message for a number literal that does not fit a 64-bit float. */
export function outOfRangeMessage(literal?: string): string {
  const quoted =
    literal === undefined
      ? 'A number'
      : `The number ${literal.length > MAX_QUOTED_NUMBER ? `${literal.slice(0, MAX_QUOTED_NUMBER)}…` : literal}`;
  return `${quoted} is out of range (JSON numbers must fit a 64-bit float)`;
}

export function tooDeepMessage(maxDepth: number): string {
  return `JSON nested deeper than ${maxDepth} levels`;
}

class LenientParser {
  private readonly text: string;
  private readonly allowClose: boolean;
  private readonly maxDepth: number;
  private readonly extended: boolean;
  private pos = 0;
  /** The containers open around `pos`, innermost last. */
  private readonly open: ('{' | '[')[] = [];
  readonly repairs = new Set<RepairKind>();
  closedAtEnd = false;
  /** Where the last number read ended. */
  private numberEnd = -1;

  constructor(text: string, options: LenientOptions) {
    this.text = text;
    this.allowClose = options.allowCloseAtEnd;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_READ_DEPTH;
    this.extended = options.extended === true;
  }

  parseDocument(): JsonValue {
    const value = this.parseValue('top');
    this.skipSpace();
    if (this.pos < this.text.length) this.fail('Unexpected text after the JSON value');
    return value;
  }

  /** Objects in a row, separated by whitespace or commas (some servers concatenate several calls' arguments). */
  parseObjects(): { values: JsonValue[]; starts: number[] } {
    this.skipSpace();
    const starts = [this.pos];
    const values = [this.parseValue('top')];
    let comma = false;
    while (true) {
      this.skipSpace();
      const c = this.text.charAt(this.pos);
      if (c === ',') {
        comma = true;
        this.pos += 1;
      } else if (c === '{' && isJsonObject(values[0])) {
        comma = false;
        starts.push(this.pos);
        values.push(this.parseValue('top'));
      } else break;
    }
    if (this.pos < this.text.length) this.fail('Unexpected text after the JSON value');
    if (comma) this.repairs.add('removed_trailing_commas');
    return { values, starts };
  }

  private fail(message: string, position: number = this.pos, limit?: ReadLimit): never {
    throw new ParseFailure(message, position, limit);
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private skipSpace(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const c = text.charAt(this.pos);
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') this.pos += 1;
      else if (c === '\u00a0' || c === '\ufeff' || c === '\u2028' || c === '\u2029') {
        this.repairs.add('normalized_whitespace');
        this.pos += 1;
      } else if (c === '/' && text.charAt(this.pos + 1) === '/') {
        const newline = text.indexOf('\n', this.pos);
        this.pos = newline < 0 ? text.length : newline;
        this.repairs.add('removed_comments');
      } else if (c === '/' && text.charAt(this.pos + 1) === '*') {
        const close = text.indexOf('*/', this.pos + 2);
        this.pos = close < 0 ? text.length : close + 2;
        this.repairs.add('removed_comments');
      } else if (this.extended && c === '\\' && LITERAL_LAYOUT.has(text.charAt(this.pos + 1))) {
        this.repairs.add('literal_escape_sequences');
        this.pos += 2;
      } else return;
    }
  }

  private closeAtEnd(what: string): void {
    if (!this.allowClose) this.fail(`Unexpected end of text: ${what} is missing`);
    this.closedAtEnd = true;
    this.repairs.add('closed_brackets_at_end');
  }

  private parseValue(place: Place): JsonValue {
    this.skipSpace();
    if (this.atEnd()) this.fail('Unexpected end of text: a value is missing');
    const c = this.text.charAt(this.pos);
    if (c === '{') return this.parseObject();
    if (c === '[') return this.parseArray();
    if ((c === '"' || c === "'") && this.extended && this.text.startsWith(c.repeat(3), this.pos))
      return this.parseTripleQuoted(c);
    if (c === '"') return this.parseString('"', place);
    if (c === "'") {
      this.repairs.add('single_quoted_strings');
      return this.parseString("'", place);
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.parseNumber();
    return this.parseWord();
  }

  private enter(kind: '{' | '['): void {
    this.open.push(kind);
    if (this.open.length > this.maxDepth) this.fail(tooDeepMessage(this.maxDepth), this.pos, 'too_deep');
    this.pos += 1;
  }

  /**
   * Extended reads: the closer at `pos` is the enclosing container's, so the
   * container being read lost its own closer (`[{"a": 1]`). The closer is
   * then left for the enclosing container.
   */
  private closesEnclosing(closer: string): boolean {
    const c = this.text.charAt(this.pos);
    if (!this.extended || c !== OTHER_CLOSER[closer] || this.open.at(-2) !== (c === '}' ? '{' : '[')) return false;
    this.repairs.add('inserted_missing_closer');
    return true;
  }

  /** Extended reads: `{{` or `{{{` opening an object (a template escape); returns how many extra braces were read. */
  private doubledBraces(): number {
    let extra = 0;
    while (this.extended && extra < MAX_EXTRA_BRACES && this.text.charAt(this.pos) === '{') {
      extra += 1;
      this.pos += 1;
      this.skipSpace();
    }
    if (extra > 0) this.repairs.add('collapsed_doubled_braces');
    return extra;
  }

  private closeDoubledBraces(extra: number): void {
    for (let i = 0; i < extra; i += 1) {
      this.skipSpace();
      if (this.atEnd()) {
        this.closeAtEnd("'}'");
        return;
      }
      if (this.text.charAt(this.pos) !== '}') this.fail("Expected '}' to match a doubled '{'");
      this.pos += 1;
    }
  }

  /**
   * Where a member or item may start: whether the container ends here, by
   * its own `closer` (stepped past) or an enclosing one. The end of the text
   * fails with `missing`.
   */
  private closesHere(closer: string, missing: string): boolean {
    if (this.atEnd()) this.fail(missing);
    if (this.text.charAt(this.pos) === closer) {
      this.pos += 1;
      return true;
    }
    return this.closesEnclosing(closer);
  }

  private parseObject(): JsonObject {
    this.enter('{');
    const result: JsonObject = {};
    this.skipSpace();
    const extra = this.doubledBraces();
    while (true) {
      // Right after `{` or `,`: a member was still to come (closing here would invent an empty object or drop it).
      if (this.closesHere('}', "Unexpected end of text: a member or '}' is missing")) break;
      const key = this.parseKey();
      this.skipSpace();
      if (this.text.charAt(this.pos) !== ':') this.fail(`Expected ':' after the key "${key}"`);
      this.pos += 1;
      setJsonKey(result, key, this.parseValue('object'));
      if (!this.afterMember('}', `the value of "${key}"`)) break;
    }
    this.open.pop();
    if (extra > 0) this.closeDoubledBraces(extra);
    return result;
  }

  private parseArray(): JsonValue[] {
    this.enter('[');
    const result: JsonValue[] = [];
    this.skipSpace();
    while (true) {
      if (this.closesHere(']', "Unexpected end of text: an item or ']' is missing")) break;
      result.push(this.parseValue('array'));
      if (!this.afterMember(']', `item ${result.length}`)) break;
    }
    this.open.pop();
    return result;
  }

  /** After a member: true to read another, false when the container is done. */
  private afterMember(closer: string, what: string): boolean {
    // A number the text ends on may be cut (`12` of `125`): only a value that ends itself lets brackets close.
    const numberAtEnd = this.numberEnd === this.text.length;
    this.skipSpace();
    if (this.atEnd()) {
      if (numberAtEnd) this.fail('Unexpected end of text right after a number: the text was cut off');
      this.closeAtEnd(`'${closer}'`);
      return false;
    }
    const c = this.text.charAt(this.pos);
    if (c === closer) {
      this.pos += 1;
      return false;
    }
    if (this.closesEnclosing(closer)) return false;
    if (c !== ',') this.fail(`Expected ',' or '${closer}' after ${what}`);
    this.pos += 1;
    this.skipSpace();
    if (this.text.charAt(this.pos) === closer) this.repairs.add('removed_trailing_commas');
    return true;
  }

  private parseKey(): string {
    const c = this.text.charAt(this.pos);
    if (c === '"') return this.parseString('"', 'key');
    if (c === "'") {
      this.repairs.add('single_quoted_strings');
      return this.parseString("'", 'key');
    }
    KEY_RE.lastIndex = this.pos;
    const match = KEY_RE.exec(this.text);
    if (match === null) this.fail('Expected a property name in double quotes');
    this.repairs.add('quoted_keys');
    this.pos += match[0].length;
    return match[0];
  }

  private parseString(quote: string, place: Place): string {
    const text = this.text;
    let out = '';
    this.pos += 1;
    let segment = this.pos;
    /** The first quote kept as part of the string (extended reads), or -1. */
    let inner = -1;
    while (true) {
      if (this.pos >= text.length) {
        // Past a quote it kept, a string that runs to the end is no cut string: nothing says where it ends.
        if (inner >= 0 && this.allowClose) this.fail(`Unescaped ${quote} inside a string`, inner);
        // A string cut by the end of the text is never closed: "Par" may have been "Paris" (an invented value).
        this.fail('Unexpected end of text inside a string: the text was cut off');
      }
      const c = text.charAt(this.pos);
      if (c === quote) {
        if (!this.extended || closesString(text, this.pos, { place, keptQuote: inner >= 0 })) {
          out += text.slice(segment, this.pos);
          this.pos += 1;
          if (inner >= 0) this.repairs.add('unescaped_inner_quotes');
          return out;
        }
        if (inner < 0) inner = this.pos;
        this.pos += 1;
        continue;
      }
      if (c === '\\') {
        out += text.slice(segment, this.pos) + this.readEscape(quote);
        segment = this.pos;
        continue;
      }
      if (c < ' ') this.repairs.add('escaped_control_characters');
      this.pos += 1;
    }
  }

  /** A Python `"""…"""` or `'''…'''` string: raw line breaks and lone quotes inside are text. */
  private parseTripleQuoted(quote: string): string {
    const text = this.text;
    const closer = quote.repeat(3);
    let out = '';
    this.pos += 3;
    let segment = this.pos;
    this.repairs.add('triple_quoted_strings');
    while (true) {
      if (this.pos >= text.length)
        this.fail('Unexpected end of text inside a triple-quoted string: the text was cut off');
      const c = text.charAt(this.pos);
      if (c === '\\') {
        out += text.slice(segment, this.pos) + this.readEscape(quote);
        segment = this.pos;
        continue;
      }
      if (c === quote && text.startsWith(closer, this.pos)) {
        // In a run of more than three quotes the last three close the string (`"""say "hi""""`).
        let end = this.pos;
        while (text.charAt(end + 3) === quote) end += 1;
        this.pos = end + 3;
        return out + text.slice(segment, end);
      }
      this.pos += 1;
    }
  }

  /** Reads the escape at `pos` (a backslash) and returns what it stands for. */
  private readEscape(quote: string): string {
    const next = this.text.charAt(this.pos + 1);
    this.pos += 2;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) return simple;
    if (next === 'u') {
      const hex = this.text.slice(this.pos, this.pos + 4);
      if (HEX4_RE.test(hex)) {
        this.pos += 4;
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
    }
    if (next === '') {
      // A lone backslash at the very end: the string was cut mid-escape.
      this.pos -= 1;
      return '';
    }
    if (!(next === "'" && quote === "'")) this.repairs.add('fixed_invalid_escapes');
    // Keep an unknown escape literally: `"\d+"` in a regex argument means backslash-d.
    return next === "'" ? "'" : `\\${next}`;
  }

  private parseNumber(): number {
    NUMBER_RE.lastIndex = this.pos;
    const match = NUMBER_RE.exec(this.text);
    if (match === null) this.fail('Invalid number');
    const value = Number(match[0]);
    // 1e400 reads as Infinity, which JSON.stringify then sends on as null.
    if (!Number.isFinite(value)) this.fail(outOfRangeMessage(match[0]), this.pos, 'not_finite');
    this.pos += match[0].length;
    this.numberEnd = this.pos;
    return value;
  }

  private parseWord(): JsonValue {
    WORD_RE.lastIndex = this.pos;
    const match = WORD_RE.exec(this.text);
    if (match === null) this.fail(`Unexpected character '${this.text.charAt(this.pos)}'`);
    const word = match[0];
    if (JSON_LITERALS.has(word)) {
      this.pos += word.length;
      return JSON_LITERALS.get(word) ?? null;
    }
    if (PYTHON_LITERALS.has(word)) {
      this.pos += word.length;
      this.repairs.add('python_literals');
      return PYTHON_LITERALS.get(word) ?? null;
    }
    // A word cut by the end of the text (`tr`) is truncation, not a bad word.
    const end = this.pos + word.length;
    return this.fail(
      `Unexpected word "${word.slice(0, 40)}": string values need quotes`,
      end >= this.text.length ? end : this.pos,
    );
  }
}

function failureOf(error: unknown, text: string): LenientFailure {
  if (error instanceof ParseFailure) {
    const failure = {
      ok: false as const,
      message: error.message,
      position: error.position,
      atEnd: error.position >= text.length,
    };
    return error.limit === undefined ? failure : { ...failure, limit: error.limit };
  }
  // The depth bound keeps recursion shallow; should a small stack still run out, it is a failure, not a throw.
  return { ok: false, message: 'JSON too deeply nested to read', position: 0, atEnd: false, limit: 'too_deep' };
}

/** Reads `text` as one lenient JSON value. Never throws. */
export function parseLenient(text: string, options: LenientOptions): LenientResult {
  const parser = new LenientParser(text, options);
  try {
    const value = parser.parseDocument();
    return { ok: true, value, repairs: [...parser.repairs], closedAtEnd: parser.closedAtEnd };
  } catch (error) {
    return failureOf(error, text);
  }
}

/**
 * Reads `text` as one lenient JSON value, or as several objects in a row
 * separated by whitespace or commas (`{"a": 1}{"a": 2}`). Never throws.
 */
export function parseLenientObjects(text: string, options: LenientOptions): LenientObjectsResult {
  const parser = new LenientParser(text, options);
  try {
    const { values, starts } = parser.parseObjects();
    return { ok: true, values, starts, repairs: [...parser.repairs], closedAtEnd: parser.closedAtEnd };
  } catch (error) {
    return failureOf(error, text);
  }
}
