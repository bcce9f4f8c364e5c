import type { JsonSchema } from '../../core/json.ts';
import { parseEnvelopedPythonicCalls } from '../pythonic.ts';
import { repairArguments } from '../repair-arguments.ts';
import type { Span } from '../types.ts';
import type { ArgsReading } from './args-reading.ts';
import type { ArgumentGrammar, XmlParameters } from './call-format.ts';
import { readObjectLiteral } from './object-literal.ts';
import { readXmlArguments, xmlElement } from './xml-arguments.ts';

/**
 * The argument grammars, few and shared: JSON, JSON-like object literals,
 * XML parameter forms, key=value pairs. Each reads a whole span or fails:
 * markup a grammar does not read is never dropped. `sniffArguments` tries
 * the format's own grammar first, then every other one.
 */

/** The XML forms tried when sniffing, in the spellings models use. */
export const XML_FORMS: readonly XmlParameters[] = [
  { form: 'equals', tag: 'parameter' },
  { form: 'attribute', tag: 'parameter', attribute: 'name' },
  { form: 'child', keyTag: 'arg_key', valueTag: 'arg_value' },
  { form: 'tag' },
];

/** Delimiters of object literals tried when sniffing (beyond `"` and `'`). */
const SNIFF_DELIMITERS: readonly (readonly [string, string])[] = [['<escape>', '<escape>']];

export function readJsonArguments(text: string, span: Span): ArgsReading {
  const read = repairArguments(text.slice(span.start, span.end));
  if (read.ok) return { ok: true, args: read.arguments, repairs: read.repairs };
  return {
    ok: false,
    message: read.message.replace(/\.$/, ''),
    position: span.start + read.position,
    cut: read.reason === 'cut',
  };
}

/** `city="Paris", days=3`, or the same in parentheses: read as the keyword arguments of a Python call. */
export function readKeyValue(text: string, span: Span): ArgsReading {
  const inner = text.slice(span.start, span.end).trim();
  if (inner === '') return { ok: true, args: {}, repairs: [] };
  const call = inner.startsWith('(') ? `f${inner}` : `f(${inner})`;
  const parsed = parseEnvelopedPythonicCalls(call, 0, call.length);
  const offset =
    span.start +
    (text.slice(span.start, span.end).length - text.slice(span.start, span.end).trimStart().length) -
    (inner.startsWith('(') ? 1 : 2);
  if (!parsed.ok)
    return { ok: false, message: parsed.message, position: Math.max(span.start, offset + parsed.position), cut: false };
  const [only] = parsed.calls;
  if (only === undefined || parsed.calls.length !== 1)
    return { ok: false, message: 'expected one list of key=value pairs', position: span.start, cut: false };
  return { ok: true, args: only.arguments, repairs: [] };
}

/** How arguments are read: the grammar (for sniffing: the one tried first) and the tool's schema, when it has one. */
export interface ArgsGrammar {
  grammar: ArgumentGrammar;
  schema?: JsonSchema | undefined;
}

/** Reads `span` in one grammar. */
export function readArguments(text: string, span: Span, how: ArgsGrammar): ArgsReading {
  const { grammar, schema } = how;
  switch (grammar.grammar) {
    case 'json':
      return readJsonArguments(text, span);
    case 'object_literal':
      return readObjectLiteral(text, span, grammar.stringDelimiters);
    case 'xml':
      return readXmlArguments(text, span, { parameters: grammar.parameters, schema });
    case 'key_value':
      return readKeyValue(text, span);
  }
}

/** The grammars tried for arguments written in `own`: it first, then the others. */
export function grammarsToTry(own: ArgumentGrammar): ArgumentGrammar[] {
  const delimiters =
    own.grammar === 'object_literal' ? [...own.stringDelimiters, ...SNIFF_DELIMITERS] : SNIFF_DELIMITERS;
  const others: ArgumentGrammar[] = [
    { grammar: 'json' },
    { grammar: 'object_literal', stringDelimiters: delimiters, unquotedKeys: true },
    ...XML_FORMS.map((parameters): ArgumentGrammar => ({ grammar: 'xml', parameters })),
    { grammar: 'key_value' },
  ];
  return [own, ...others.filter((g) => JSON.stringify(g) !== JSON.stringify(own))];
}

/** What arguments in a grammar look like, in words (for "expected …" messages). */
export function describeGrammar(grammar: ArgumentGrammar): string {
  switch (grammar.grammar) {
    case 'json':
      return 'as JSON';
    case 'object_literal':
      return `as an object literal ({key: ${grammar.stringDelimiters[0]?.join('value') ?? '"value"'}})`;
    case 'key_value':
      return 'as key=value pairs';
    case 'xml': {
      const p = grammar.parameters;
      return (
        `as ${xmlElement(p, p.form === 'tag' ? 'name' : '…', 'value')} ` +
        `${p.form === 'child' ? 'pairs' : 'elements'}`
      );
    }
  }
}

export type SniffResult = (ArgsReading & { ok: true; grammar: ArgumentGrammar }) | (ArgsReading & { ok: false });

/**
 * Reads `span` in `own` grammar, else in the first other grammar that reads
 * all of it. A failure is the own grammar's (its message and position), or
 * `cut` when any grammar found the text cut at its end.
 */
export function sniffArguments(text: string, span: Span, how: ArgsGrammar): SniffResult {
  let first: ArgsReading | undefined;
  let cut = false;
  for (const grammar of grammarsToTry(how.grammar)) {
    const read = readArguments(text, span, { grammar, schema: how.schema });
    if (read.ok) return { ...read, grammar };
    first ??= read;
    // A cut counts only from a grammar that read some of it as its own (an unclosed string of JSON, a value left open).
    if (read.cut && read.position > span.start) cut = true;
  }
  const failure =
    first !== undefined && !first.ok
      ? first
      : { ok: false as const, message: 'unreadable', position: span.start, cut: false };
  return { ok: false, message: failure.message, position: failure.position, cut: failure.cut || cut };
}
