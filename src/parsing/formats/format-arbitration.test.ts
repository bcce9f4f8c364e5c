// A format passed in the options (configured, or derived from a chat template)
// must never make a reply read worse than the built-in lexicon alone: the
// reader keeps the better of the two readings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadTemplate } from '../../../test/fixtures/templates/templates.ts';
import { deriveFormat } from '../templates/derive-format.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { findFormatCalls } from './find-format-calls.ts';
import type { CallFormat } from './call-format.ts';

const tools = ['search', 'get_weather'];

function glmFormat(): CallFormat {
  const derived = deriveFormat(loadTemplate('GLM-4.7-Flash.jinja'));
  assert.ok(derived.ok, derived.ok ? '' : derived.reason);
  return derived.format;
}

describe('a format and the lexicon read the same reply', () => {
  it('keeps the lexicon reading when the format fails where the lexicon repairs (a lost <arg_value> opener)', () => {
    const format = glmFormat();
    const text = '<tool_call>search<arg_key>query</arg_key>vacation days left</arg_value></tool_call>';
    // The template's format alone does not read it (the generic reader knows no GLM-specific repair)…
    const alone = findFormatCalls(text, format);
    assert.equal(alone.length, 1);
    // …the lexicon does; with the format given, the call is still read, with its argument.
    const result = extractToolCalls(text, { tools, formats: [format] });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['search', { query: 'vacation days left' }]],
    );
    assert.deepEqual(result, extractToolCalls(text, { tools }));
  });

  it("keeps the format's reading when the lexicon reads nothing", () => {
    const format: CallFormat = {
      id: 'angles',
      origin: 'config',
      call: { begin: '<<call>>', end: '<</call>>' },
      name: { slot: 'marker', after: '::' },
      arguments: { grammar: 'json' },
    };
    const text = '<<call>>get_weather::{"city": "Paris"}<</call>>';
    assert.deepEqual(extractToolCalls(text, { tools }).calls, [], 'the lexicon alone reads no call here');
    const result = extractToolCalls(text, { tools, formats: [format] });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.equal(result.diagnostics.filter((d) => d.code !== 'repaired').length, 0);
  });
});
