import { isRecord, type JsonObject, type JsonSchema, type JsonValue } from '../../core/json.ts';
import { createFinders, indexInTagHead, skipSpace } from '../envelopes/envelope.ts';
import type { Finders } from '../envelopes/envelope.ts';
import { attributeValue, typedValue, xmlValue } from '../envelopes/xml-params.ts';
import { setJsonKey } from '../../core/set-json-key.ts';
import type { RepairKind, Span } from '../types.ts';
import type { TagSyntax, XmlParameters } from './call-format.ts';
import type { ArgsReading } from './args-reading.ts';

/**
 * XML parameter forms, read so that every element is consumed: text between
 * the elements, or an element of another form, fails the reading (the
 * caller then tries the other grammars, and reports what it expected).
 * A value is text, unless the tool's schema wants something else for it and
 * it reads as JSON; with no schema for it, as xml-params reads it.
 */

const TAG_NAME_RE = /[A-Za-z_][\w.-]{0,63}/y;

/** Values of a `type` attribute that say how a value is written (`type="number"`). */
const JSON_TYPES = new Set(['number', 'integer', 'boolean', 'null', 'object', 'array']);

/** Drops the one layout line break on each side that templates put around a value. */
function unlayout(raw: string): string {
  return raw.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

function wantsText(schema: JsonSchema | undefined, key: string): boolean | undefined {
  const properties = schema?.['properties'];
  if (!isRecord(properties)) return undefined;
  const property = properties[key];
  if (!isRecord(property)) return undefined;
  const type = property['type'];
  if (type === 'string') return true;
  if (typeof type === 'string') return false;
  if (Array.isArray(type)) return type.includes('string') && type.length === 1;
  return undefined;
}

/** A value under the schema: text where it wants text, JSON where it wants more and the text reads as JSON. */
export function schemaValue(
  raw: string,
  element: { key: string; head?: string },
  schema: JsonSchema | undefined,
): JsonValue {
  const { key, head = '' } = element;
  if (head !== '' && attributeValue(head, 'string') !== undefined) return typedValue(raw, head);
  const type = head === '' ? undefined : attributeValue(head, 'type');
  if (type === 'string') return unlayout(raw);
  if (type !== undefined && JSON_TYPES.has(type))
    return wantsText(schema, key) === true ? unlayout(raw) : xmlValue(raw);
  const text = wantsText(schema, key);
  if (text === true) return unlayout(raw);
  return xmlValue(raw);
}

interface Element {
  key: string;
  head: string;
  valueStart: number;
  valueEnd: number;
  end: number;
}

type Step =
  | { ok: true; element: Element; repairs: RepairKind[] }
  | { ok: false; message: string; position: number; cut: boolean };

/**
 * The value from `from` to `</tag>`; without that closer, to the next element of the same form or the end of the span.
 */
function valueTo(
  find: Finders,
  where: { from: number; limit: number; closer: string; nextOpen: string; atTextEnd: boolean },
): { valueEnd: number; end: number; repairs: RepairKind[] } | { cut: true } {
  const close = find(where.closer)(where.from);
  const next = find(where.nextOpen)(where.from);
  if (close >= 0 && (next < 0 || next > close))
    return { valueEnd: close, end: close + where.closer.length, repairs: [] };
  if (next >= 0) return { valueEnd: next, end: next, repairs: ['missing_closer'] };
  if (where.atTextEnd) return { cut: true };
  return { valueEnd: where.limit, end: where.limit, repairs: ['missing_closer'] };
}

/** `syntax` with every delimiter filled in (ordinary XML when it is not given). */
export function tagSyntax(syntax: TagSyntax | undefined): Required<TagSyntax> {
  if (syntax === undefined) return DEFAULT_TAG_SYNTAX;
  return { open: syntax.open, end: syntax.end, close: syntax.close, closeEnd: syntax.closeEnd ?? syntax.end };
}

/** The delimiters of ordinary XML. */
export const DEFAULT_TAG_SYNTAX: Readonly<Required<TagSyntax>> = { open: '<', end: '>', close: '</', closeEnd: '>' };

/**
 * One parameter element of the `p` form, in its tag syntax: `key` named as the form names it, `value` written as given.
 */
export function xmlElement(p: XmlParameters, key: string, value: string): string {
  const s = tagSyntax(p.syntax);
  const open = (tag: string, rest = ''): string => `${s.open}${tag}${rest}${s.end}`;
  const close = (tag: string): string => `${s.close}${tag}${s.closeEnd}`;
  switch (p.form) {
    case 'attribute':
      return `${open(p.tag, ` ${p.attribute}="${key}"`)}${value}${close(p.tag)}`;
    case 'equals':
      return `${open(p.tag, `=${key}`)}${value}${close(p.tag)}`;
    case 'child':
      return `${open(p.keyTag)}${key}${close(p.keyTag)}${open(p.valueTag)}${value}${close(p.valueTag)}`;
    case 'tag':
      return `${open(key)}${value}${close(key)}`;
  }
}

/**
 * One element at `pos` of `text` (the span's own text: no search runs past it),
 * read with the span's finders, in the `params` form; `atTextEnd` when the span ends the text.
 */
function element(
  text: string,
  pos: number,
  reader: { find: Finders; params: XmlParameters; atTextEnd: boolean },
): Step {
  const { find, params, atTextEnd } = reader;
  const limit = text.length;
  const s = tagSyntax(params.syntax);
  const fail = (message: string): Step => ({ ok: false, message, position: pos, cut: false });
  let key: string;
  let head = '';
  let bodyStart: number;
  let closer: string;
  let nextOpen: string;
  switch (params.form) {
    case 'attribute':
    case 'equals': {
      const open = `${s.open}${params.tag}`;
      if (!text.startsWith(open, pos)) return fail(`expected ${open}…${s.end}`);
      const gt = indexInTagHead(text, s.end, pos + open.length);
      if (gt < 0 || gt >= limit)
        return { ok: false, message: `the ${open} tag is never closed by ${s.end}`, position: pos, cut: atTextEnd };
      head = text.slice(pos + open.length, gt);
      if (params.form === 'equals') {
        if (!head.startsWith('=')) return fail(`expected ${open}=NAME${s.end}`);
        key = head
          .slice(1)
          .trim()
          .replace(/^["']|["']$/g, '');
      } else key = /^\s/.test(head) ? (attributeValue(head, params.attribute) ?? '') : '';
      if (key === '') return fail(`the ${open} tag names no argument`);
      bodyStart = gt + s.end.length;
      closer = `${s.close}${params.tag}${s.closeEnd}`;
      nextOpen = open;
      break;
    }
    case 'child': {
      const keyOpen = `${s.open}${params.keyTag}${s.end}`;
      const keyClose = `${s.close}${params.keyTag}${s.closeEnd}`;
      if (!text.startsWith(keyOpen, pos)) return fail(`expected ${keyOpen}`);
      const kc = find(keyClose)(pos + keyOpen.length);
      if (kc < 0) return { ok: false, message: `${keyOpen} is never closed`, position: pos, cut: atTextEnd };
      key = text.slice(pos + keyOpen.length, kc).trim();
      const vo = skipSpace(text, kc + keyClose.length, limit);
      const valueOpen = `${s.open}${params.valueTag}${s.end}`;
      if (!text.startsWith(valueOpen, vo))
        return {
          ok: false,
          message: `expected ${valueOpen} after the key "${key}"`,
          position: vo,
          cut: vo >= limit && atTextEnd,
        };
      bodyStart = vo + valueOpen.length;
      closer = `${s.close}${params.valueTag}${s.closeEnd}`;
      nextOpen = keyOpen;
      break;
    }
    case 'tag': {
      TAG_NAME_RE.lastIndex = pos + s.open.length;
      const name = text.startsWith(s.open, pos) ? TAG_NAME_RE.exec(text) : null;
      if (name === null || !text.startsWith(s.end, pos + s.open.length + name[0].length))
        return fail(`expected ${s.open}NAME${s.end}value${s.close}NAME${s.closeEnd}`);
      key = name[0];
      bodyStart = pos + s.open.length + name[0].length + s.end.length;
      closer = `${s.close}${key}${s.closeEnd}`;
      // A tag-named value has no "next element" marker of its own: its closer is required.
      nextOpen = `\u0000`;
      break;
    }
  }
  if (key === '') return fail('an element names no argument');
  const value = valueTo(find, { from: bodyStart, limit, closer, nextOpen, atTextEnd });
  if ('cut' in value)
    return { ok: false, message: `the value of "${key}" is never closed by ${closer}`, position: bodyStart, cut: true };
  return {
    ok: true,
    element: { key, head, valueStart: bodyStart, valueEnd: value.valueEnd, end: value.end },
    repairs: value.repairs,
  };
}

/** Reads `span` as elements of the `parameters` form, all of it; values are typed by the tool's `schema`. */
export function readXmlArguments(
  text: string,
  span: Span,
  how: { parameters: XmlParameters; schema: JsonSchema | undefined },
): ArgsReading {
  const { schema } = how;
  const args: JsonObject = {};
  const repairs = new Set<RepairKind>();
  const local = text.slice(span.start, span.end);
  const reader = { find: createFinders(local), params: how.parameters, atTextEnd: span.end === text.length };
  let pos = skipSpace(local, 0);
  while (pos < local.length) {
    const step = element(local, pos, reader);
    if (!step.ok) return { ...step, position: span.start + step.position };
    const { key, valueStart, valueEnd, end } = step.element;
    setJsonKey(args, key, schemaValue(local.slice(valueStart, valueEnd), step.element, schema));
    for (const kind of step.repairs) repairs.add(kind);
    if (end <= pos)
      return { ok: false, message: 'an element could not be read', position: span.start + pos, cut: false };
    pos = skipSpace(local, end);
  }
  return { ok: true, args, repairs: [...repairs] };
}
