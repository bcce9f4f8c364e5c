import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { checkCallFormat } from './check-call-format.ts';

const W = 'parsing.formats[0]';

describe('checkCallFormat', () => {
  it('accepts a format, trims its markers, sets origin config, and the format reads calls', () => {
    const checked = checkCallFormat(
      {
        id: 'fg',
        call: { begin: ' <start_function_call>', end: '<end_function_call> ' },
        name: { slot: 'marker', before: 'call:' },
        arguments: { grammar: 'object_literal', stringDelimiters: [['<escape>', '<escape>']] },
      },
      W,
    );
    assert.ok(checked.ok);
    assert.deepEqual(checked.format, {
      id: 'fg',
      origin: 'config',
      call: { begin: '<start_function_call>', end: '<end_function_call>' },
      name: { slot: 'marker', before: 'call:' },
      arguments: { grammar: 'object_literal', stringDelimiters: [['<escape>', '<escape>']], unquotedKeys: true },
    });
    const r = extractToolCalls('<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>', {
      tools: ['get_weather'],
      formats: [checked.format],
    });
    assert.deepEqual(
      r.calls.map((c) => c.arguments),
      [{ city: 'Paris' }],
    );
  });

  it('names every problem with its path and how to fix it', () => {
    const checked = checkCallFormat(
      { call: { end: '   ' }, name: { slot: 'somewhere' }, arguments: { grammar: 'yaml' }, colour: 'blue' },
      W,
    );
    assert.deepEqual(checked, {
      ok: false,
      problems: [
        `${W}.colour: unknown key; allowed keys are id, description, section, ` +
          `call, separator, name, arguments, argumentsEnd, list, reasoning.`,
        `${W}.id: missing; give the format a short name (shown in diagnostics).`,
        `${W}.call.end: is empty or only whitespace; write the marker's text, or leave the key out.`,
        `${W}.call.begin: missing, and there is no section.begin: set call.begin (the ` +
          `text that opens each call) or section.begin (the text that opens the calls).`,
        `${W}.name.slot: must be one of field, key, marker, call (field: {"name": …, ` +
          `"arguments": …}; key: {"<tool>": {…}}; marker: between markers; call: <tool>(…)).`,
        `${W}.arguments.grammar: must be one of json, object_literal, xml, key_value, got "yaml".`,
      ],
    });
  });

  it('refuses a marker name slot with nothing to find the name by, and bad XML parameters', () => {
    const checked = checkCallFormat(
      {
        id: 'x',
        section: { begin: '<calls>' },
        call: { begin: '' },
        name: { slot: 'marker' },
        arguments: { grammar: 'xml', parameters: { form: 'child', keyTag: 'k' } },
      },
      W,
    );
    assert.deepEqual(checked, {
      ok: false,
      problems: [
        `${W}.name: a marker name slot needs something to find ` +
          `the name by: set name.before or name.after, or call.begin.`,
        `${W}.arguments.parameters.valueTag: missing; write the literal text of the marker.`,
      ],
    });
  });

  it(
    'accepts XML parameters in another tag syntax and a ' + 'name followed by attributes, and the format reads calls',
    () => {
      const syntax = { open: '<|open|>', end: '<|sep|>', close: '<|close|>' };
      const checked = checkCallFormat(
        {
          id: 'k3',
          call: { begin: '<|open|>call tool="', end: '<|close|>call<|sep|>' },
          name: { slot: 'marker', after: '"', tagEnd: ' <|sep|>' },
          arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: 'argument', attribute: 'key', syntax } },
        },
        W,
      );
      assert.ok(checked.ok, checked.ok ? '' : checked.problems.join('\n'));
      assert.deepEqual(checked.format.name, { slot: 'marker', after: '"', tagEnd: '<|sep|>' });
      assert.deepEqual(checked.format.arguments, {
        grammar: 'xml',
        parameters: { form: 'attribute', tag: 'argument', attribute: 'key', syntax },
      });
      const r = extractToolCalls(
        '<|open|>call tool="get_weather" index="4"<|sep|><|open|>argument ' +
          'key="city"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|>',
        { tools: ['get_weather'], formats: [checked.format] },
      );
      assert.deepEqual(
        r.calls.map((c) => [c.name, c.arguments]),
        [['get_weather', { city: 'Paris' }]],
      );
    },
  );

  it('refuses an incomplete tag syntax, an opener equal to the closer, and tagEnd without after', () => {
    const bad = (syntax: unknown, name: unknown = { slot: 'marker', before: '<f=', after: '>' }): unknown =>
      checkCallFormat(
        { id: 'x', call: { begin: '<c>' }, name, arguments: { grammar: 'xml', parameters: { form: 'tag', syntax } } },
        W,
      );
    assert.deepEqual(bad({ open: '[[', end: ']]' }), {
      ok: false,
      problems: [`${W}.arguments.parameters.syntax.close: missing; write the literal text of the marker.`],
    });
    assert.deepEqual(bad({ open: '[[', end: ']]', close: '[[', sep: '|' }), {
      ok: false,
      problems: [
        `${W}.arguments.parameters.syntax.sep: unknown key; allowed keys are open, end, close, closeEnd.`,
        `${W}.arguments.parameters.syntax.close: must differ from ` +
          `${W}.arguments.parameters.syntax.open, or an opening tag cannot be told from a closing one.`,
      ],
    });
    assert.deepEqual(bad('<>'), {
      ok: false,
      problems: [
        `${W}.arguments.parameters.syntax: must be an object (the tag delimiters: {open, ` +
          `end, close, closeEnd?}, like {open: "<|open|>", end: "<|sep|>", close: "<|close|>"}).`,
      ],
    });
    assert.deepEqual(bad(undefined, { slot: 'marker', tagEnd: '>' }), {
      ok: false,
      problems: [
        `${W}.name.tagEnd: needs name.after, the text that ends the name ` +
          `(the attribute's closing quote) before the other attributes.`,
      ],
    });
  });

  it('refuses what is not an object', () => {
    assert.deepEqual(checkCallFormat('hermes', W), {
      ok: false,
      problems: [`${W}: must be an object describing a call format (id, call, name, arguments…).`],
    });
  });
});
