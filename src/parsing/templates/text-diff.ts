/** Length of the common prefix of two strings. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return i;
}

/** Length of the common suffix of two strings, at most `limit`. */
export function commonSuffix(a: string, b: string, limit = Math.min(a.length, b.length)): number {
  let i = 0;
  while (i < limit && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i += 1;
  return i;
}

const WORD = /[\p{L}\p{N}_]/u;

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

/**
 * Moves a cut point back so it does not split a tag (`<tool_call>`), a
 * bracket token (`[TOOL_CALLS]`) or a word: two renders that share `<t`
 * of `<think>` and `<tool_call>` share no marker.
 */
export function snapBack(text: string, at: number): number {
  let i = at;
  for (;;) {
    const open = Math.max(text.lastIndexOf('<', i - 1), text.lastIndexOf('[', i - 1));
    const close = Math.max(text.lastIndexOf('>', i - 1), text.lastIndexOf(']', i - 1));
    if (i > 0 && open > close && open < i) {
      i = open;
      continue;
    }
    if (i > 0 && isWord(text[i - 1]) && isWord(text[i])) {
      i -= 1;
      continue;
    }
    return i;
  }
}

/** The mirror of `snapBack`: moves a cut point forward past a split tag or word. */
export function snapForward(text: string, at: number): number {
  let i = at;
  for (;;) {
    const nextClose = firstOf(text, ['>', ']'], i);
    const nextOpen = firstOf(text, ['<', '['], i);
    if (
      i < text.length &&
      nextClose >= 0 &&
      (nextOpen < 0 || nextClose < nextOpen) &&
      i > 0 &&
      hasOpenerBefore(text, i)
    ) {
      i = nextClose + 1;
      continue;
    }
    if (i < text.length && i > 0 && isWord(text[i - 1]) && isWord(text[i])) {
      i += 1;
      continue;
    }
    return i;
  }
}

function hasOpenerBefore(text: string, at: number): boolean {
  const open = Math.max(text.lastIndexOf('<', at - 1), text.lastIndexOf('[', at - 1));
  const close = Math.max(text.lastIndexOf('>', at - 1), text.lastIndexOf(']', at - 1));
  return open > close;
}

function firstOf(text: string, chars: readonly string[], from: number): number {
  let best = -1;
  for (const ch of chars) {
    const at = text.indexOf(ch, from);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/**
 * A marker's text split into tokens: tags (`<…>`, `[…]`) and runs of other
 * non-space text. Used to tell a call's opener from the text right before
 * the name (`<tool_call>` + `<function=`).
 */
export function markerPieces(text: string): string[] {
  const pieces: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? '';
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    const close = ch === '<' ? '>' : ch === '[' ? ']' : '';
    if (close !== '') {
      const end = text.indexOf(close, i + 1);
      const nextOpen = text.indexOf(ch, i + 1);
      if (end >= 0 && (nextOpen < 0 || end < nextOpen)) {
        pieces.push(text.slice(i, end + 1));
        i = end + 1;
        continue;
      }
      // A tag still open at the end runs into the name (`<invoke name="`): one piece.
      if (end < 0 && nextOpen < 0) {
        pieces.push(text.slice(i).trimEnd());
        break;
      }
    }
    let j = i + 1;
    while (j < text.length && !/\s/.test(text[j] ?? '') && text[j] !== '<' && text[j] !== '[') j += 1;
    pieces.push(text.slice(i, j));
    i = j;
  }
  return pieces;
}

/** A complete tag or bracket token, as opposed to text that runs on into the name. */
export function isClosedToken(piece: string): boolean {
  return (piece.startsWith('<') && piece.endsWith('>')) || (piece.startsWith('[') && piece.endsWith(']'));
}

const TOKEN_TAG_RE = /(<[^<>\s]+>)([A-Za-z_][\w.-]*)(<[^<>\s]+>)$/;

/**
 * A tag written in a template's own syntax at the end of `text`: a token, a
 * word, a token, with nothing between (`<|open|>think<|sep|>`). Such a tag is
 * one marker, where markerPieces sees three pieces.
 */
export function tokenTagAtEnd(text: string): string | undefined {
  return TOKEN_TAG_RE.exec(text)?.[0];
}

/**
 * A cut at `at` that falls between the word and the closing token of such a
 * tag (`<|close|>tools` | `<|sep|>`): moved past the token.
 */
export function snapPastTokenTag(text: string, at: number): number {
  const token = /^<[^<>\s]+>/.exec(text.slice(at, at + 64))?.[0];
  if (token === undefined || !/<[^<>\s]+>[A-Za-z_][\w.-]*$/.test(text.slice(Math.max(0, at - 128), at))) return at;
  return at + token.length;
}
