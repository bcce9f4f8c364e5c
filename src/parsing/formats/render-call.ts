import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { ArgumentGrammar, CallFormat } from './call-format.ts';
import { xmlElement } from './xml-arguments.ts';

/**
 * Writes calls the way a format says they are written: the inverse of the
 * format reader, for tests of built-in and configured formats and for
 * showing a format to people. Values are written as the grammar writes them
 * (JSON, object literals with the format's first string delimiters, XML
 * elements with one layout line break around each value, Python literals).
 */

export interface CallToRender {
  name: string;
  arguments: JsonObject;
}

const IDENTIFIER_RE = /^[A-Za-z_$][\w$]*$/;

function literal(value: JsonValue, delimiters: readonly [string, string] | undefined, unquotedKeys: boolean): string {
  if (typeof value === 'string')
    return delimiters === undefined || delimiters[0] === '"'
      ? JSON.stringify(value)
      : `${delimiters[0]}${value}${delimiters[1]}`;
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, delimiters, unquotedKeys)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) =>
        `${unquotedKeys && IDENTIFIER_RE.test(key) ? key : JSON.stringify(key)}: ` +
        `${literal(item, delimiters, unquotedKeys)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}

function python(value: JsonValue): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (Array.isArray(value)) return `[${value.map(python).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${python(item)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** A value as an XML element holds it: text as it is, anything else as JSON, with a layout line break on each side. */
function elementText(value: JsonValue): string {
  return `\n${typeof value === 'string' ? value : JSON.stringify(value)}\n`;
}

/** The arguments alone, in `grammar`. */
export function renderArguments(args: JsonObject, grammar: ArgumentGrammar): string {
  switch (grammar.grammar) {
    case 'json':
      return JSON.stringify(args);
    case 'object_literal':
      return literal(args, grammar.stringDelimiters[0], grammar.unquotedKeys);
    case 'xml':
      return Object.entries(args)
        .map(([key, value]) => xmlElement(grammar.parameters, key, elementText(value)))
        .join('\n');
    case 'key_value':
      return Object.entries(args)
        .map(([key, value]) => `${key}=${python(value)}`)
        .join(', ');
  }
}

/** The value holding a call in a name-in-body slot (field, key), in the format's grammar. */
function bodyValue(format: CallFormat, call: CallToRender): JsonObject {
  if (format.name.slot === 'field')
    return { [format.name.nameKey]: call.name, [format.name.argumentsKey]: call.arguments };
  return { [call.name]: call.arguments };
}

function renderBody(format: CallFormat, calls: readonly CallToRender[]): string {
  const g = format.arguments;
  const value = (v: JsonValue): string =>
    g.grammar === 'object_literal' ? literal(v, g.stringDelimiters[0], g.unquotedKeys) : JSON.stringify(v);
  switch (format.name.slot) {
    case 'field':
    case 'key': {
      const items = calls.map((call) => bodyValue(format, call));
      return format.list === true ? value(items) : items.map((item) => value(item)).join(', ');
    }
    case 'call': {
      const one = (call: CallToRender): string => `${call.name}(${renderArguments(call.arguments, g)})`;
      return format.list === true ? `[${calls.map(one).join(', ')}]` : calls.map(one).join(', ');
    }
    case 'marker': {
      const slot = format.name;
      return calls
        .map(
          (call) =>
            `${slot.before ?? ''}${call.name}${slot.after ?? '\n'}${slot.tagEnd ?? ''}` +
            `${renderArguments(call.arguments, g)}${format.argumentsEnd ?? ''}`,
        )
        .join('\n');
    }
  }
}

/** Array.isArray, told that a readonly list is what it finds (its own typing knows only mutable arrays). */
function isCallList(call: CallToRender | readonly CallToRender[]): call is readonly CallToRender[] {
  return Array.isArray(call);
}

/**
 * One or more calls as `format` writes them: in one call envelope when the
 * format writes a list, else one envelope per call, joined by the separator,
 * inside the section when there is one.
 */
export function renderCall(format: CallFormat, call: CallToRender | readonly CallToRender[]): string {
  const calls: readonly CallToRender[] = isCallList(call) ? call : [call];
  const groups = format.list === true ? [calls] : calls.map((c) => [c]);
  const envelopes = groups.map((group) => `${format.call.begin}${renderBody(format, group)}${format.call.end ?? ''}`);
  const body = envelopes.join(format.separator === undefined ? '\n' : `${format.separator}\n`);
  return format.section === undefined ? body : `${format.section.begin}${body}${format.section.end ?? ''}`;
}
