import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import type { ArgumentGrammar, CallFormat, NameSlot, XmlParameters } from './call-format.ts';
import { renderCall } from './render-call.ts';

/**
 * Random formats (every slot and grammar, markers from a pool) and random
 * calls: what renderCall writes, the reader reads back exactly.
 */

const SECTIONS: readonly [string, string][] = [
  ['<|tools|>', '<|end_tools|>'],
  ['<seed:tool_call>', '</seed:tool_call>'],
  ['[CALLS]', '[/CALLS]'],
];
const CALLS: readonly [string, string | undefined][] = [
  ['<tool_call>', '</tool_call>'],
  ['<|tc|>', '<|/tc|>'],
  ['<<fn>>', '<</fn>>'],
  ['[CALL]', undefined],
];
const XML_FORMS: readonly XmlParameters[] = [
  { form: 'equals', tag: 'parameter' },
  { form: 'attribute', tag: 'param', attribute: 'key' },
  { form: 'child', keyTag: 'arg_key', valueTag: 'arg_value' },
  { form: 'tag' },
];
const TOOLS = ['get_weather', 'search_docs', 'run_query'];
const SCHEMA = {
  type: 'object',
  properties: {
    s1: { type: 'string' },
    s2: { type: 'string' },
    n: { type: 'number' },
    b: { type: 'boolean' },
    o: { type: 'object' },
    a: { type: 'array' },
  },
};

const grammarArb: fc.Arbitrary<ArgumentGrammar> = fc.oneof(
  fc.constant<ArgumentGrammar>({ grammar: 'json' }),
  fc.constantFrom<ArgumentGrammar>(
    { grammar: 'object_literal', stringDelimiters: [['<escape>', '<escape>']], unquotedKeys: true },
    { grammar: 'object_literal', stringDelimiters: [['"', '"']], unquotedKeys: true },
  ),
  fc.constantFrom(...XML_FORMS).map((parameters): ArgumentGrammar => ({ grammar: 'xml', parameters })),
  fc.constant<ArgumentGrammar>({ grammar: 'key_value' }),
);

const formatArb: fc.Arbitrary<CallFormat> = fc
  .record({
    section: fc.option(fc.constantFrom(...SECTIONS), { nil: undefined }),
    call: fc.constantFrom(...CALLS),
    emptyCall: fc.boolean(),
    slot: fc.constantFrom('field', 'key', 'call', 'marker'),
    before: fc.option(fc.constantFrom('<function=', 'call:', '<|fn|>'), { nil: undefined }),
    after: fc.option(fc.constantFrom('>', '[ARGS]', '<|arg|>', '::'), { nil: undefined }),
    grammar: grammarArb,
    list: fc.boolean(),
    separator: fc.option(fc.constantFrom(',', ';'), { nil: undefined }),
    argumentsEnd: fc.option(fc.constantFrom('</function>', '<|/args|>'), { nil: undefined }),
  })
  .map((r): CallFormat => {
    let name: NameSlot;
    let grammar = r.grammar;
    if (r.slot === 'field') name = { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' };
    else if (r.slot === 'key') name = { slot: 'key' };
    else if (r.slot === 'call') name = { slot: 'call' };
    else
      name = {
        slot: 'marker',
        ...(r.before === undefined ? {} : { before: r.before }),
        ...(r.after === undefined ? {} : { after: r.after }),
      };
    // Names inside a body are read from JSON-like values or call expressions.
    if ((r.slot === 'field' || r.slot === 'key') && (grammar.grammar === 'xml' || grammar.grammar === 'key_value'))
      grammar = { grammar: 'json' };
    if (r.slot === 'call') grammar = { grammar: 'key_value' };
    const marker = r.slot === 'marker';
    // Unbracketed arguments (XML, key=value after a marker) need a closer to say where they end.
    const needsEnd = marker && (grammar.grammar === 'xml' || grammar.grammar === 'key_value');
    const [begin, end] = needsEnd && r.call[1] === undefined ? (CALLS[0] as [string, string]) : r.call;
    const emptyCall = r.emptyCall && r.section !== undefined && !marker;
    return {
      id: 'random',
      origin: 'config',
      ...(r.section === undefined ? {} : { section: { begin: r.section[0], end: r.section[1] } }),
      call: emptyCall ? { begin: '' } : { begin, ...(end === undefined ? {} : { end }) },
      name,
      arguments: grammar,
      ...(r.list && !marker ? { list: true } : {}),
      ...(r.separator === undefined ? {} : { separator: r.separator }),
      ...(marker && r.argumentsEnd !== undefined ? { argumentsEnd: r.argumentsEnd } : {}),
    };
  });

// Values: unicode, both quotes, line breaks, backslashes; no markup characters (formats do not escape them).
const stringArb = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    ' ',
    '"',
    "'",
    '\n',
    '\\',
    'é',
    '東',
    '😀',
    '{',
    '}',
    ',',
    ':',
    '=',
    '(',
    ')',
    '3',
    '.',
  ),
  maxLength: 12,
});
const scalarArb = fc.oneof(stringArb, fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null));
const nestedArb: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    scalarArb,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('x', 'y', 'k_1'), tie('v'), { maxKeys: 3 }),
  ),
})).v;
const argsArb: fc.Arbitrary<JsonObject> = fc.record(
  {
    s1: stringArb,
    s2: stringArb,
    n: fc.integer({ min: -99999, max: 99999 }),
    b: fc.boolean(),
    o: fc.dictionary(fc.constantFrom('x', 'y', 'k_1'), nestedArb, { maxKeys: 3 }),
    a: fc.array(nestedArb, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);
const callsArb = fc.array(fc.record({ name: fc.constantFrom(...TOOLS), arguments: argsArb }), {
  minLength: 1,
  maxLength: 3,
});

describe('format reader (property)', () => {
  it('reads back exactly the calls renderCall wrote, for random formats and calls', () => {
    const tools = TOOLS.map((name) => ({ name, inputSchema: SCHEMA }));
    fc.assert(
      fc.property(formatArb, callsArb, fc.constantFrom('', 'Sure, checking.\n'), (format, calls, prose) => {
        const text = `${prose}${renderCall(format, calls)}`;
        const result = extractToolCalls(text, { tools, formats: [format] });
        assert.deepEqual(
          result.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
          JSON.parse(JSON.stringify(calls)),
          `${JSON.stringify(format)}\n${text}\n${JSON.stringify(result.diagnostics)}`,
        );
      }),
      { numRuns: 400 },
    );
  });
});
