import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { deriveFormat } from './derive-format.ts';
import { renderAssistantCalls } from './render-assistant-calls.ts';
import { dropEmptyTags, findTagSyntax, syntaxPieces } from './tag-syntax.ts';

const K3 = { open: '<|open|>', end: '<|sep|>', close: '<|close|>' };

describe('findTagSyntax', () => {
  it('reads the delimiters, form and extent of an attribute element with extra attributes', () => {
    const text =
      '" index="1"<|sep|><|open|>argument key="alpha_key" ' +
      'type="string"<|sep|>alpha value<|close|>argument<|sep|><|close|>call<|sep|>';
    const found = findTagSyntax(text, 'alpha_key', 'alpha value');
    assert.deepEqual(found, {
      parameters: { form: 'attribute', tag: 'argument', attribute: 'key', syntax: K3 },
      start: text.indexOf('<|open|>argument'),
      end: text.indexOf('<|close|>call'),
    });
  });

  it('reads the equals and tag forms in delimiters it has never seen', () => {
    assert.deepEqual(findTagSyntax('{{p=k}}v{{/p}}', 'k', 'v')?.parameters, {
      form: 'equals',
      tag: 'p',
      syntax: { open: '{{', end: '}}', close: '{{/' },
    });
    assert.deepEqual(findTagSyntax('@@k##v@@!k##', 'k', 'v')?.parameters, {
      form: 'tag',
      syntax: { open: '@@', end: '##', close: '@@!' },
    });
  });

  it('leaves plain XML and text that is no markup to the other readers', () => {
    assert.equal(findTagSyntax('<parameter name="k">v</parameter>', 'k', 'v'), undefined);
    assert.equal(findTagSyntax('k: v and more', 'k', 'v'), undefined);
    assert.equal(findTagSyntax('"k": "v"}', 'k', 'v'), undefined);
  });
});

describe('syntaxPieces and dropEmptyTags', () => {
  it('a whole tag is one piece; a tag open at the end runs into the name', () => {
    assert.deepEqual(syntaxPieces('<|close|>call<|sep|> <|open|>call tool="', K3), [
      '<|close|>call<|sep|>',
      '<|open|>call tool="',
    ]);
  });

  it('drops leading closers and empty pairs, and nothing else', () => {
    assert.equal(
      dropEmptyTags('<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|>', K3),
      '<|open|>tools<|sep|>',
    );
    assert.equal(
      dropEmptyTags('<|open|>response<|sep|>text<|close|>response<|sep|><|open|>tools<|sep|>', K3),
      '<|open|>response<|sep|>text<|close|>response<|sep|><|open|>tools<|sep|>',
    );
  });
});

/** A template in a tag syntax no family uses: the analysis knows no string of it. */
const BRACKETS =
  `{%- for m in messages -%}
[[msg role="{{ m.role }}"]]{%- if m.content -%}{{ m.content }}{%- endif -%}
{%- if m.tool_calls -%}[[calls]]{%- for c in m.tool_calls -%}[[invoke fn="{{ c.function.name }}" n="{{ ` +
  (`loop.index }}"]]{%- for k, v in c.function.arguments.items() -%}[[arg name="{{ k }}"]]{{ v if v is ` +
    `string else v|tojson }}[[/arg]]{%- endfor -%}[[/invoke]]{%- endfor -%}[[/calls]]{%- endif -%}[[/msg]]
{%- endfor -%}
{%- if add_generation_prompt -%}[[msg role="assistant"]]{%- endif -%}`);

describe('a template in a tag syntax of its own', () => {
  const derived = deriveFormat(BRACKETS, { id: 'brackets' });

  it('derives its format: delimiters, the name attribute and the attributes after it', () => {
    assert.ok(derived.ok, derived.ok ? '' : derived.reason);
    const { id: _id, origin: _origin, description: _description, ...format } = derived.format;
    assert.deepEqual(format, {
      section: { begin: '[[calls]]', end: '[[/calls]]' },
      arguments: {
        grammar: 'xml',
        parameters: {
          form: 'attribute',
          tag: 'arg',
          attribute: 'name',
          syntax: { open: '[[', end: ']]', close: '[[/' },
        },
      },
      call: { begin: '[[invoke fn="', end: '[[/invoke]]' },
      name: { slot: 'marker', after: '"', tagEnd: ']]' },
    });
  });

  it('reads back what the template renders', () => {
    assert.ok(derived.ok);
    const value = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((v) => !v.includes('[[/arg]]') && v.trim() === v && v !== '' && !/^[-\d[{"tfn]/.test(v));
    const calls = fc.array(
      fc.record({
        name: fc.constantFrom('get_weather', 'list_files'),
        arguments: fc.dictionary(fc.constantFrom('city', 'note'), value, { maxKeys: 2 }),
      }),
      { minLength: 1, maxLength: 3 },
    );
    fc.assert(
      fc.property(calls, (sample) => {
        const rendered = renderAssistantCalls(BRACKETS, sample);
        assert.ok(rendered.ok, rendered.ok ? '' : rendered.reason);
        const r = extractToolCalls(rendered.text, { tools: ['get_weather', 'list_files'], formats: [derived.format] });
        assert.deepEqual(
          r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
          JSON.parse(JSON.stringify(sample)),
          rendered.text,
        );
      }),
      { numRuns: 60 },
    );
  });
});
