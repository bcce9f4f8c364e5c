import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';
import type { CallFormat, XmlParameters } from './call-format.ts';
import { findFormatCalls } from './find-format-calls.ts';
import { describeGrammar } from './read-arguments.ts';
import { renderCall } from './render-call.ts';
import { readXmlArguments } from './xml-arguments.ts';

const SYNTAX = { open: '<|open|>', end: '<|sep|>', close: '<|close|>' };
const ATTRIBUTE: XmlParameters = { form: 'attribute', tag: 'argument', attribute: 'key', syntax: SYNTAX };

function readAll(
  text: string,
  params: XmlParameters,
  schema?: Record<string, unknown>,
): ReturnType<typeof readXmlArguments> {
  return readXmlArguments(text, { start: 0, end: text.length }, { parameters: params, schema });
}

describe('XML parameters in another tag syntax', () => {
  it('reads the attribute form, and a type attribute says text or JSON', () => {
    const text =
      '<|open|>argument key="city" type="string"<|sep|>3<|close|>argument<|sep|>\n<|open|>argument key="days" ' +
      ('type="number"<|sep|>3<|close|>argument<|sep|><|open|>argument ' +
        'key="q" type="object"<|sep|>{"a": [1]}<|close|>argument<|sep|>');
    assert.deepEqual(readAll(text, ATTRIBUTE), { ok: true, args: { city: '3', days: 3, q: { a: [1] } }, repairs: [] });
  });

  it('reads the equals, child and tag forms with the same delimiters', () => {
    assert.deepEqual(
      readAll('<|open|>p=city<|sep|>Oslo<|close|>p<|sep|>', { form: 'equals', tag: 'p', syntax: SYNTAX }),
      { ok: true, args: { city: 'Oslo' }, repairs: [] },
    );
    assert.deepEqual(
      readAll('<|open|>k<|sep|>city<|close|>k<|sep|> <|open|>v<|sep|>Oslo<|close|>v<|sep|>', {
        form: 'child',
        keyTag: 'k',
        valueTag: 'v',
        syntax: SYNTAX,
      }),
      { ok: true, args: { city: 'Oslo' }, repairs: [] },
    );
    assert.deepEqual(readAll('<|open|>city<|sep|>Oslo<|close|>city<|sep|>', { form: 'tag', syntax: SYNTAX }), {
      ok: true,
      args: { city: 'Oslo' },
      repairs: [],
    });
  });

  it('a distinct close-end is honoured', () => {
    const params: XmlParameters = { form: 'tag', syntax: { open: '{{', end: '}}', close: '{{/', closeEnd: '/}}' } };
    assert.deepEqual(readAll('{{city}}Oslo{{/city/}}', params), { ok: true, args: { city: 'Oslo' }, repairs: [] });
    assert.equal(readAll('{{city}}Oslo{{/city}}', params).ok, false);
  });

  it('plain XML is not read as the other syntax, nor the other syntax as plain XML', () => {
    assert.equal(readAll('<argument key="city">Oslo</argument>', ATTRIBUTE).ok, false);
    assert.equal(
      readAll('<|open|>argument key="city"<|sep|>Oslo<|close|>argument<|sep|>', {
        form: 'attribute',
        tag: 'argument',
        attribute: 'key',
      }).ok,
      false,
    );
  });

  it('left-over markup fails the reading, with the position of what was not read', () => {
    const text =
      '<|open|>argument key="city"<|sep|>Oslo<|close|>argument<|sep|> ' +
      'stray <|open|>argument key="days"<|sep|>2<|close|>argument<|sep|>';
    const read = readAll(text, ATTRIBUTE);
    assert.equal(read.ok, false);
    if (!read.ok) {
      assert.equal(read.position, text.indexOf('stray'));
      assert.match(read.message, /expected <\|open\|>argument…<\|sep\|>/);
    }
  });

  it('a value cut at the end of the text is cut, and says which closer it lacked', () => {
    const read = readAll('<|open|>argument key="city"<|sep|>Osl', ATTRIBUTE);
    assert.equal(read.ok, false);
    if (!read.ok) {
      assert.equal(read.cut, true);
      assert.match(read.message, /never closed by <\|close\|>argument<\|sep\|>/);
    }
  });

  it('describes the grammar in its own delimiters', () => {
    assert.equal(
      describeGrammar({ grammar: 'xml', parameters: ATTRIBUTE }),
      'as <|open|>argument key="…"<|sep|>value<|close|>argument<|sep|> elements',
    );
  });
});

/** A format in the shape of Kimi K3's: a name attribute followed by an index that varies between calls. */
const TAGGED: CallFormat = {
  id: 'tagged',
  origin: 'config',
  section: { begin: '<|open|>tools<|sep|>', end: '<|close|>tools<|sep|>' },
  call: { begin: '<|open|>call tool="', end: '<|close|>call<|sep|>' },
  name: { slot: 'marker', after: '"', tagEnd: '<|sep|>' },
  arguments: { grammar: 'xml', parameters: ATTRIBUTE },
};

const TOOLS = [
  {
    name: 'get_weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } } },
  },
  'list_files',
];

describe('a name attribute followed by other attributes (tagEnd)', () => {
  it('reads calls whose index attribute varies, and skips any attributes before the tag end', () => {
    const text =
      'Checking.<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument ' +
      ('key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|open|>call ' +
        'tool="list_files" index="27" id=\'c9\'<|sep|><|close|>call<|sep|><|close|>tools<|sep|>');
    const r = extractToolCalls(text, { tools: TOOLS, formats: [TAGGED] });
    assert.deepEqual(
      r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'list_files', arguments: {} },
      ],
    );
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.content, 'Checking.');
  });

  it('text that is not an attribute before the tag end is a malformed call, not a call', () => {
    const text =
      '<|open|>tools<|sep|><|open|>call tool="get_weather" then ' +
      'something<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    assert.deepEqual(extractToolCalls(text, { tools: TOOLS, formats: [TAGGED] }).calls, []);
    const payloads = findFormatCalls(text, TAGGED).flatMap((e) => e.payloads);
    assert.deepEqual(
      payloads.map((p) => p.kind),
      ['malformed'],
    );
    assert.ok(
      payloads[0]?.kind === 'malformed' &&
        payloads[0].message.includes('attributes and then `<|sep|>` after the tool name'),
      JSON.stringify(payloads),
    );
  });

  it('renderCall writes the syntax, and the reader reads it back', () => {
    const sample = [
      { name: 'get_weather', arguments: { city: 'Paris <b> "x"', days: 3 } },
      { name: 'list_files', arguments: {} },
    ];
    const text = renderCall(TAGGED, sample);
    assert.ok(text.includes('<|open|>argument key="city"<|sep|>'), text);
    const r = extractToolCalls(text, { tools: TOOLS, formats: [TAGGED] });
    assert.deepEqual(
      r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      sample,
    );
  });
});
