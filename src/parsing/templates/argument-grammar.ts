import type { ArgumentGrammar, XmlParameters } from '../formats/call-format.ts';
import { findTagSyntax } from './tag-syntax.ts';

/** Where the arguments sit in a call's text, and how they are written. */
export interface ArgumentsFound {
  grammar: ArgumentGrammar;
  start: number;
  end: number;
}

/** End of the balanced `open`…`close` group starting at `start` (strings in `"`/`'` skipped), or -1. */
export function balancedEnd(text: string, start: number, brackets: readonly [open: string, close: string]): number {
  const [open, close] = brackets;
  let depth = 0;
  let quote = '';
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (quote !== '') {
      if (ch === '\\') i += 1;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === open) depth += 1;
    else if (ch === close) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function jsonEquals(text: string, expected: Record<string, unknown>): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(expected);
  } catch {
    return false;
  }
}

/**
 * A `{…}` object holding the probe's one argument: JSON, or a JSON-like
 * literal whose string delimiters are read off the text around the value.
 */
function objectArguments(text: string, probe: { key: string; value: string }): ArgumentsFound | undefined {
  const { key, value } = probe;
  const keyAt = text.indexOf(key);
  if (keyAt < 0) return undefined;
  const start = text.lastIndexOf('{', keyAt);
  if (start < 0) return undefined;
  const end = balancedEnd(text, start, ['{', '}']);
  if (end < 0) return undefined;
  const body = text.slice(start, end);
  if (jsonEquals(body, { [key]: value })) return { grammar: { grammar: 'json' }, start, end };
  const valueAt = body.indexOf(value);
  const colon = body.indexOf(':', body.indexOf(key) + key.length);
  if (valueAt < 0 || colon < 0 || colon > valueAt) return undefined;
  const opener = body.slice(colon + 1, valueAt).trim();
  const closeEnd = body.slice(valueAt + value.length).search(/\s*[,}]/);
  const closer = body.slice(valueAt + value.length, valueAt + value.length + Math.max(0, closeEnd)).trim();
  if (opener === '' || closer === '') return undefined;
  const keyQuoted = body[body.indexOf(key) - 1] === '"' || body[body.indexOf(key) - 1] === "'";
  return {
    grammar: { grammar: 'object_literal', stringDelimiters: [[opener, closer]], unquotedKeys: !keyQuoted },
    start,
    end,
  };
}

const TAG_NAME = /<([^\s<>=/"']+)\s+([\w:-]+)=["']?$/;
const TAG_EQUALS = /<([^\s<>=/"']+)=$/;
const TAG_CHILD = /<([^\s<>=/"']+)>$/;

/** One XML parameter element (the probe has one argument) and its form. */
function xmlArguments(text: string, key: string, value: string): ArgumentsFound | undefined {
  const keyAt = text.indexOf(key);
  const valueAt = text.indexOf(value, keyAt + key.length);
  if (keyAt < 0 || valueAt < 0) return undefined;
  const before = text.slice(0, keyAt);
  const closing = (tag: string): number => {
    const at = text.indexOf(`</${tag}>`, valueAt + value.length);
    return at < 0 ? -1 : at + tag.length + 3;
  };
  const attribute = TAG_NAME.exec(before);
  if (attribute?.[1] !== undefined && attribute[2] !== undefined) {
    const end = closing(attribute[1]);
    if (end > 0)
      return {
        grammar: { grammar: 'xml', parameters: { form: 'attribute', tag: attribute[1], attribute: attribute[2] } },
        start: attribute.index,
        end,
      };
  }
  const equals = TAG_EQUALS.exec(before);
  if (equals?.[1] !== undefined) {
    const end = closing(equals[1]);
    if (end > 0)
      return { grammar: { grammar: 'xml', parameters: { form: 'equals', tag: equals[1] } }, start: equals.index, end };
  }
  const child = TAG_CHILD.exec(before);
  if (child?.[1] !== undefined && child[1] !== key) {
    const afterKey = text.slice(keyAt + key.length, valueAt);
    const valueTag = /^<\/[^>]+>\s*<([^\s<>=/"']+)>\s*$/.exec(afterKey)?.[1];
    if (afterKey.trimStart().startsWith(`</${child[1]}>`) && valueTag !== undefined) {
      const end = closing(valueTag);
      const parameters: XmlParameters = { form: 'child', keyTag: child[1], valueTag };
      if (end > 0) return { grammar: { grammar: 'xml', parameters }, start: child.index, end };
    }
  }
  if (before.endsWith('<') && text.slice(keyAt + key.length).startsWith('>')) {
    const end = closing(key);
    if (end > 0) return { grammar: { grammar: 'xml', parameters: { form: 'tag' } }, start: keyAt - 1, end };
  }
  return undefined;
}

/**
 * Reads how one call's arguments are written, from the text after its name
 * (`tail`), given the probe's single argument `{key: value}`.
 */
export function findArguments(tail: string, probe: { key: string; value: string }): ArgumentsFound | undefined {
  const trimmed = tail.trimStart();
  if (trimmed.startsWith('(')) {
    const start = tail.indexOf('(');
    const end = balancedEnd(tail, start, ['(', ')']);
    const body = end > 0 ? tail.slice(start + 1, end - 1) : '';
    if (end > 0 && new RegExp(`^\\s*${probe.key}\\s*=`).test(body))
      return { grammar: { grammar: 'key_value' }, start, end };
  }
  const keyAt = tail.indexOf(probe.key);
  const braceAt = tail.lastIndexOf('{', keyAt);
  const tagAt = tail.lastIndexOf('<', keyAt);
  if (braceAt >= 0 && braceAt >= tagAt) {
    const found = objectArguments(tail, probe);
    if (found !== undefined) return found;
  }
  return (
    xmlArguments(tail, probe.key, probe.value) ??
    otherTags(tail, probe.key, probe.value) ??
    objectArguments(tail, probe)
  );
}

/** XML parameters written with other tag delimiters (`<|open|>argument key="…"<|sep|>`). */
function otherTags(tail: string, key: string, value: string): ArgumentsFound | undefined {
  const found = findTagSyntax(tail, key, value);
  return found === undefined
    ? undefined
    : { grammar: { grammar: 'xml', parameters: found.parameters }, start: found.start, end: found.end };
}
