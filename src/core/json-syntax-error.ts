/**
 * Where strict JSON (RFC 8259, as JSON.parse reads it) first goes wrong, with
 * a reason in our own words. JSON.parse's message quotes the text around the
 * error ("Unexpected token 'r', "root:x:0:0"... is not valid JSON"), which must
 * not reach a message when the text is a file nobody vetted. One iterative
 * pass, so deep nesting cannot overflow the stack.
 */
export interface JsonSyntaxError {
  /** Offset of the offending character in the string (its length at an unexpected end). */
  position: number;
  /** 1-based. */
  line: number;
  /** 1-based, in characters. */
  column: number;
  /** Never contains any of the text. */
  reason: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
/** After a backslash: `" \ / b f n r t`; `u` is handled apart. */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const LITERALS = ['true', 'false', 'null'] as const;

type Expect = 'value' | 'firstValue' | 'key' | 'firstKey' | 'colon' | 'next' | 'end';

/** The first syntax error of `text`, or undefined when JSON.parse would accept it. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const closers: number[] = [];
  let expect: Expect = 'value';
  let i = 0;
  while (true) {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i += 1;
    if (i >= text.length) return expect === 'end' ? undefined : errorAt(text, i, 'unexpected end of input');
    const c = text.charCodeAt(i);
    let end: number | JsonSyntaxError;
    // An empty object or array closes right after it opened.
    if ((expect === 'firstKey' && c === CLOSE_CURLY) || (expect === 'firstValue' && c === CLOSE_SQUARE)) {
      i += 1;
      expect = closeContainer(closers);
      continue;
    }
    switch (expect) {
      case 'end':
        return errorAt(text, i, 'unexpected character after the JSON value');
      case 'colon':
        if (c !== COLON) return errorAt(text, i, "expected ':' after a property name");
        i += 1;
        expect = 'value';
        continue;
      case 'next': {
        const closer = closers[closers.length - 1];
        if (c === COMMA) {
          i += 1;
          expect = closer === CLOSE_CURLY ? 'key' : 'value';
        } else if (c === closer) {
          i += 1;
          expect = closeContainer(closers);
        } else {
          return errorAt(text, i, closer === CLOSE_CURLY ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        continue;
      }
      case 'firstKey':
      case 'key':
        if (c !== QUOTE) return errorAt(text, i, 'expected a double-quoted property name');
        end = scanString(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = 'colon';
        continue;
      case 'firstValue':
      case 'value':
        if (c === OPEN_CURLY || c === OPEN_SQUARE) {
          closers.push(c === OPEN_CURLY ? CLOSE_CURLY : CLOSE_SQUARE);
          i += 1;
          expect = c === OPEN_CURLY ? 'firstKey' : 'firstValue';
          continue;
        }
        if (c === QUOTE) end = scanString(text, i);
        else if (c === MINUS || isDigit(c)) end = scanNumber(text, i);
        else end = scanLiteral(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = closers.length === 0 ? 'end' : 'next';
        continue;
    }
  }
}

/** Closes the innermost container: what may come next is its parent's next member, or nothing. */
function closeContainer(closers: number[]): Expect {
  closers.pop();
  return closers.length === 0 ? 'end' : 'next';
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** `start` is at the opening quote; returns the offset after the closing one. */
function scanString(text: string, start: number): number | JsonSyntaxError {
  let j = start + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return errorAt(text, j, 'control character in a string (it must be escaped)');
    if (c !== BACKSLASH) {
      j += 1;
      continue;
    }
    if (j + 1 >= text.length) break;
    const escaped = text.charCodeAt(j + 1);
    if (SIMPLE_ESCAPES.has(escaped)) {
      j += 2;
    } else if (escaped === 0x75) {
      for (let k = j + 2; k < j + 6; k += 1) {
        if (k >= text.length) return errorAt(text, k, 'unexpected end of input');
        if (!isHex(text.charCodeAt(k))) return errorAt(text, k, 'invalid \\u escape in a string');
      }
      j += 6;
    } else {
      return errorAt(text, j, 'invalid escape in a string');
    }
  }
  return errorAt(text, text.length, 'unterminated string');
}

/** `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` */
function scanNumber(text: string, start: number): number | JsonSyntaxError {
  let j = start;
  if (text.charCodeAt(j) === MINUS) j += 1;
  const digits = (): boolean => {
    const from = j;
    while (j < text.length && isDigit(text.charCodeAt(j))) j += 1;
    return j > from;
  };
  if (text.charCodeAt(j) === 0x30) j += 1;
  else if (!digits()) return errorAt(text, j, 'invalid number');
  if (text.charCodeAt(j) === 0x2e) {
    j += 1;
    if (!digits()) return errorAt(text, j, 'invalid number');
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j += 1;
    const sign = text.charCodeAt(j);
    if (sign === 0x2b || sign === MINUS) j += 1;
    if (!digits()) return errorAt(text, j, 'invalid number');
  }
  return j;
}

function scanLiteral(text: string, start: number): number | JsonSyntaxError {
  for (const literal of LITERALS) {
    if (text.charCodeAt(start) !== literal.charCodeAt(0)) continue;
    let k = 1;
    while (k < literal.length && text.charCodeAt(start + k) === literal.charCodeAt(k)) k += 1;
    if (k === literal.length) return start + k;
    return errorAt(text, start + k, start + k >= text.length ? 'unexpected end of input' : 'unexpected character');
  }
  return errorAt(text, start, 'unexpected character');
}

function errorAt(text: string, position: number, reason: string): JsonSyntaxError {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { position, line, column: position - lineStart + 1, reason };
}
