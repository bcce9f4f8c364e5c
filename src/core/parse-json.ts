// JSON.parse, safe from a V8 bug in Node 22–26 (nodejs/node#63785): once an
// object with a key "\\" was parsed, a later object of the same shape whose
// key is another one-character escape ("\n", "\t", "\"") gets the key "\\".
// Tool arguments and tool output are exactly where such keys turn up, and a
// silently renamed argument is a wrong call. Texts with no escaped key — all
// but a few — still go to JSON.parse; the others are read here, strictly.

/** Deeper than this is refused rather than risking the stack (JSON.parse would read it). */
const MAX_DEPTH = 5_000;
const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE_RE = /[ \t\n\r]*/y;

/** JSON.parse without a reviver, the same value and errors (SyntaxError), without the escaped-key bug. */
export function parseJson(text: string): unknown {
  if (!text.includes('\\') || !hasEscapedKey(text)) return JSON.parse(text);
  return new StrictReader(text).document();
}

/**
 * Whether a string holding an escape is followed by `:` (a key), in one pass:
 * outside strings only `"` matters, inside them only `\` and the closing `"`.
 * Text that is not JSON may be misread here; JSON.parse then refuses it anyway.
 */
function hasEscapedKey(text: string): boolean {
  let i = text.indexOf('"');
  while (i >= 0) {
    let escaped = false;
    let j = i + 1;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        j += 1;
      }
      j += 1;
    }
    if (j >= text.length) return false;
    if (escaped) {
      let k = j + 1;
      while (
        k < text.length &&
        (text.charCodeAt(k) === 0x20 ||
          text.charCodeAt(k) === 0x09 ||
          text.charCodeAt(k) === 0x0a ||
          text.charCodeAt(k) === 0x0d)
      )
        k += 1;
      if (text.charCodeAt(k) === 0x3a) return true;
    }
    i = text.indexOf('"', j + 1);
  }
  return false;
}

class StrictReader {
  readonly #text: string;
  #pos = 0;

  constructor(text: string) {
    this.#text = text;
  }

  document(): unknown {
    const value = this.#value(0);
    this.#space();
    if (this.#pos < this.#text.length) this.#fail('Unexpected non-whitespace character after JSON');
    return value;
  }

  #fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.#pos}`);
  }

  #space(): void {
    SPACE_RE.lastIndex = this.#pos;
    SPACE_RE.exec(this.#text);
    this.#pos = SPACE_RE.lastIndex;
  }

  #value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.#fail('JSON nested too deeply');
    this.#space();
    const c = this.#text.charAt(this.#pos);
    if (c === '{') return this.#object(depth);
    if (c === '[') return this.#array(depth);
    if (c === '"') return this.#string();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.#text.startsWith(word, this.#pos)) {
        this.#pos += word.length;
        return value;
      }
    }
    NUMBER_RE.lastIndex = this.#pos;
    const number = NUMBER_RE.exec(this.#text);
    if (number === null) this.#fail(c === '' ? 'Unexpected end of JSON input' : `Unexpected token '${c}'`);
    this.#pos = NUMBER_RE.lastIndex;
    return Number(number[0]);
  }

  /** Steps past an opening bracket; true when `closer` follows at once (an empty container, read whole). */
  #opensEmpty(closer: string): boolean {
    this.#pos += 1;
    this.#space();
    if (this.#text.charAt(this.#pos) !== closer) return false;
    this.#pos += 1;
    return true;
  }

  #object(depth: number): Record<string, unknown> {
    // Built key by key: no shape is shared with JSON.parse's objects, and "__proto__" is an own key as in JSON.parse.
    const out: Record<string, unknown> = {};
    if (this.#opensEmpty('}')) return out;
    for (;;) {
      this.#space();
      if (this.#text.charAt(this.#pos) !== '"') this.#fail('Expected a double-quoted property name');
      const key = this.#string();
      this.#space();
      if (this.#text.charAt(this.#pos) !== ':') this.#fail("Expected ':' after property name");
      this.#pos += 1;
      Object.defineProperty(out, key, {
        value: this.#value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.#space();
      const next = this.#text.charAt(this.#pos);
      this.#pos += 1;
      if (next === '}') return out;
      if (next !== ',') this.#fail("Expected ',' or '}' after property value");
    }
  }

  #array(depth: number): unknown[] {
    const out: unknown[] = [];
    if (this.#opensEmpty(']')) return out;
    for (;;) {
      out.push(this.#value(depth + 1));
      this.#space();
      const next = this.#text.charAt(this.#pos);
      this.#pos += 1;
      if (next === ']') return out;
      if (next !== ',') this.#fail("Expected ',' or ']' after array element");
    }
  }

  #string(): string {
    const text = this.#text;
    let out = '';
    let start = (this.#pos += 1);
    for (;;) {
      const code = text.charCodeAt(this.#pos);
      if (Number.isNaN(code)) this.#fail('Unterminated string in JSON');
      if (code === 0x22) {
        out += text.slice(start, this.#pos);
        this.#pos += 1;
        return out;
      }
      if (code < 0x20) this.#fail('Bad control character in string literal');
      if (code !== 0x5c) {
        this.#pos += 1;
        continue;
      }
      out += text.slice(start, this.#pos);
      const escape = text.charAt(this.#pos + 1);
      const simple = ESCAPES[escape];
      if (simple !== undefined) {
        out += simple;
        this.#pos += 2;
      } else if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(this.#pos + 2, this.#pos + 6))) {
        out += String.fromCharCode(Number.parseInt(text.slice(this.#pos + 2, this.#pos + 6), 16));
        this.#pos += 6;
      } else {
        this.#fail('Bad escaped character in JSON');
      }
      start = this.#pos;
    }
  }
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
