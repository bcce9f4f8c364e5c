import type { TagSyntax, XmlParameters } from '../formats/call-format.ts';
import { tagSyntax } from '../formats/xml-arguments.ts';
import { markerPieces } from './text-diff.ts';

/**
 * XML-like argument markup written with other tag delimiters, read off one
 * rendered argument: `<|open|>argument key="K" type="string"<|sep|>V<|close|>argument<|sep|>`.
 * The text right after the value is the closing tag (close-start, tag,
 * close-end); the same tag after an open-start before the key is the opening
 * tag; what ends the opening tag is what is left between the key and the
 * value once its attributes are set aside. No delimiter is known beforehand.
 */

export interface SyntaxFound {
  parameters: XmlParameters;
  start: number;
  end: number;
}

const TAG_RE = /[A-Za-z_][\w.:-]{0,63}/y;
const ATTRIBUTES_RE = /^["']?(?:\s+[A-Za-z_][\w:.-]*\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/;
/** Delimiters are short runs of punctuation-like text, never words or space. */
const DELIMITER_RE = /^[^\s\w]\S{0,23}$|^[^\s\w]$/u;

function isDelimiter(text: string): boolean {
  return DELIMITER_RE.test(text) && !/^["'=]/.test(text);
}

/** The closing tag right after the value: close-start, a tag name, then `end` (which ends closing tags too). */
function closingTag(after: string, end: string): { close: string; tag: string } | undefined {
  for (let i = 1; i <= Math.min(24, after.length); i += 1) {
    TAG_RE.lastIndex = i;
    const tag = TAG_RE.exec(after)?.[0];
    const close = after.slice(0, i);
    if (!isDelimiter(close)) return undefined;
    if (tag !== undefined && after.startsWith(end, i + tag.length)) return { close, tag };
  }
  return undefined;
}

/** The opening delimiter right before `tag` at the end of `before`: back to the previous tag's end, or space. */
function openBefore(before: string, tagAt: number, end: string): string {
  const previousEnd = before.lastIndexOf(end, tagAt - 1);
  const from = Math.max(previousEnd < 0 ? 0 : previousEnd + end.length, before.slice(0, tagAt).search(/\s\S*$/) + 1);
  return before.slice(from, tagAt);
}

/**
 * The argument element holding `key` and `value` in `text`, when its tags
 * use delimiters other than `<`, `>`, `</`: its form, the delimiters, and
 * where it starts and ends.
 */
export function findTagSyntax(text: string, key: string, value: string): SyntaxFound | undefined {
  const keyAt = text.indexOf(key);
  const valueAt = keyAt < 0 ? -1 : text.indexOf(value, keyAt + key.length);
  if (valueAt < 0) return undefined;
  const before = text.slice(0, keyAt);
  const after = text.slice(valueAt + value.length);
  const between = text.slice(keyAt + key.length, valueAt);
  const end = between.replace(ATTRIBUTES_RE, '').trim();
  if (!isDelimiter(end)) return undefined;
  const closing = closingTag(after, end);
  if (closing === undefined) return undefined;
  const elementEnd = valueAt + value.length + closing.close.length + closing.tag.length + end.length;
  const syntaxOf = (open: string): TagSyntax | undefined => {
    if (!isDelimiter(open) || open === closing.close) return undefined;
    return { open, end, close: closing.close };
  };
  const tagged = (parameters: XmlParameters, open: string, start: number): SyntaxFound | undefined => {
    const syntax = syntaxOf(open);
    if (syntax === undefined) return undefined;
    const plain = tagSyntax(undefined);
    if (syntax.open === plain.open && syntax.end === plain.end && syntax.close === plain.close) return undefined;
    return { parameters: { ...parameters, syntax }, start, end: elementEnd };
  };
  // The tag is the argument's name: open-start KEY end VALUE close-start KEY close-end.
  if (closing.tag === key && between === end) {
    const open = openBefore(before, keyAt, end);
    return tagged({ form: 'tag' }, open, keyAt - open.length);
  }
  const tag = closing.tag;
  const attribute = new RegExp(
    `${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+([A-Za-z_][\\w:-]*)\\s*=\\s*["']?$`,
  ).exec(before);
  if (attribute?.[1] !== undefined) {
    const open = openBefore(before, attribute.index, end);
    return tagged({ form: 'attribute', tag, attribute: attribute[1] }, open, attribute.index - open.length);
  }
  if (before.endsWith(`${tag}=`)) {
    const at = before.length - tag.length - 1;
    const open = openBefore(before, at, end);
    return tagged({ form: 'equals', tag }, open, at - open.length);
  }
  return undefined;
}

/** The piece of `text` that starts at `from`: a whole tag in `syntax`, or what markerPieces reads there. */
function pieceAt(text: string, from: number, syntax: Required<TagSyntax>): string {
  const opener = text.startsWith(syntax.close, from)
    ? syntax.close
    : text.startsWith(syntax.open, from)
      ? syntax.open
      : undefined;
  if (opener !== undefined) {
    const endToken = opener === syntax.close ? syntax.closeEnd : syntax.end;
    const e = text.indexOf(endToken, from + opener.length);
    const opens = [
      text.indexOf(syntax.open, from + opener.length),
      text.indexOf(syntax.close, from + opener.length),
    ].filter((at) => at >= 0);
    const nextOpen = opens.length === 0 ? -1 : Math.min(...opens);
    if (e >= 0 && (nextOpen < 0 || e < nextOpen)) return text.slice(from, e + endToken.length);
    // A tag still open at the end runs into the name (`<|open|>call tool="`): one piece.
    if (nextOpen < 0) return text.slice(from).trimEnd();
  }
  return markerPieces(text.slice(from))[0] ?? text.slice(from);
}

/** markerPieces for markup in `syntax`: each whole tag is one piece. */
export function syntaxPieces(text: string, syntax: TagSyntax): string[] {
  const full = tagSyntax(syntax);
  const pieces: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text.charAt(i))) {
      i += 1;
      continue;
    }
    const piece = pieceAt(text, i, full);
    if (piece === '') break;
    pieces.push(piece);
    i += piece.length;
  }
  return pieces;
}

/**
 * `text` without the tags in `syntax` that lead it and hold nothing: closing
 * tags left by an empty reasoning or answer before the calls, and empty
 * pairs (`<|open|>response<|sep|><|close|>response<|sep|>`).
 */
export function dropEmptyTags(text: string, syntax: TagSyntax): string {
  const full = tagSyntax(syntax);
  const tagName = (piece: string, start: string): string | undefined =>
    piece.startsWith(start) ? /^[A-Za-z_][\w.:-]*/.exec(piece.slice(start.length))?.[0] : undefined;
  let rest = text.trimStart();
  for (let round = 0; round < 8; round += 1) {
    const [first, second] = syntaxPieces(rest, syntax);
    if (first === undefined) break;
    const closed = tagName(first, full.close);
    const opened = closed === undefined ? tagName(first, full.open) : undefined;
    if (closed !== undefined && first.endsWith(full.closeEnd)) rest = rest.slice(first.length).trimStart();
    else if (
      opened !== undefined &&
      second !== undefined &&
      tagName(second, full.close) === opened &&
      first.endsWith(full.end)
    ) {
      rest = rest.slice(first.length).trimStart().slice(second.length).trimStart();
    } else break;
  }
  return rest;
}
