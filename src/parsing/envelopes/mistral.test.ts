import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import { findMistralCalls } from './mistral.ts';

describe('findMistralCalls', () => {
  it('reads the v0.3 JSON list form and swallows </s>', () => {
    const text = '[TOOL_CALLS] [{"name": "a", "arguments": {}}]</s> after';
    const [env] = findMistralCalls(text);
    assert.equal(text.slice(env?.span.start, env?.span.end), '[TOOL_CALLS] [{"name": "a", "arguments": {}}]</s>');
    assert.equal(env?.payloads[0]?.kind, 'json');
  });

  it('reads name[ARGS]{…}, name[CALL_ID]id[ARGS]{…} and name{…}', () => {
    for (const text of [
      '[TOOL_CALLS]get_weather[ARGS]{"c": 1}',
      '[TOOL_CALLS]get_weather[CALL_ID]x9Yz12345[ARGS]{"c": 1}',
      '[TOOL_CALLS]get_weather{"c": 1}',
    ]) {
      const payload = findMistralCalls(text)[0]?.payloads[0];
      assert.ok(payload?.kind === 'named', text);
      assert.equal(payload.name, 'get_weather');
      assert.equal(payload.args.kind, 'json');
    }
  });

  it('splits calls at each repeated marker', () => {
    assert.equal(findMistralCalls('[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS]b[ARGS]{}').length, 2);
  });

  it('marks arguments cut at the end', () => {
    const env = findMistralCalls('[TOOL_CALLS]a[ARGS]{"x": "cu')[0];
    assert.equal(env?.unclosed, true);
  });
});

const TOOLS = ['get_weather', 'search'];

describe('findMistralCalls repairs', () => {
  it('records a leaked </s>', () => {
    const text = '[TOOL_CALLS]get_weather[ARGS]{"c": 1}</s> Done.';
    const [env] = findMistralCalls(text);
    assert.deepEqual(env?.repairs, ['leaked_sentinel']);
    assert.equal(text.slice(env?.span.end), ' Done.');
  });

  it('reads name[ARGS]{…} without [TOOL_CALLS] at the start of the text or a line', () => {
    const text = 'Sure.\nget_weather[ARGS]{"c": 1}\nsearch[CALL_ID]a1B2c3D4e[ARGS]{"q": "x"}';
    const envelopes = findMistralCalls(text);
    assert.deepEqual(
      envelopes.map((env) => [text.slice(env.span.start, env.span.end), env.repairs]),
      [
        ['get_weather[ARGS]{"c": 1}', ['missing_opener']],
        ['search[CALL_ID]a1B2c3D4e[ARGS]{"q": "x"}', ['missing_opener']],
      ],
    );
    const payload = envelopes[1]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.name, 'search');
  });

  it('reads a second call glued to the first without its own marker', () => {
    const envelopes = findMistralCalls('[TOOL_CALLS]a[ARGS]{}b[ARGS]{}');
    assert.deepEqual(
      envelopes.map((env) => env.repairs),
      [undefined, ['missing_opener']],
    );
  });

  it('leaves [ARGS] mid-sentence and markers mentioned in prose alone', () => {
    assert.deepEqual(findMistralCalls('Then write the name, e.g. get_weather[ARGS]{"c": 1}, and so on.'), []);
    assert.deepEqual(findMistralCalls('json[ARGS]\nget_weather[ARGS] then the arguments'), []);
    assert.deepEqual(findMistralCalls('Mistral emits [TOOL_CALLS] before each call.'), []);
    assert.deepEqual(findMistralCalls('Mistral emits `[TOOL_CALLS]` first.'), []);
  });
});

describe('extractToolCalls with Mistral tokens', () => {
  it('reads several calls, each with its own marker', () => {
    const result = extractToolCalls(
      '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]search[ARGS]{"q": "y"}</s>',
      { tools: TOOLS },
    );
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [
        ['get_weather', { city: 'Paris' }],
        ['search', { q: 'y' }],
      ],
    );
    assert.equal(result.content, '');
    assert.ok(result.diagnostics.some((d) => d.name === 'search' && d.repairs?.includes('leaked_sentinel')));
  });

  it('repairs a call whose [TOOL_CALLS] was eaten', () => {
    const result = extractToolCalls('get_weather[ARGS]{"city": "Paris"}', { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => c.name),
      ['get_weather'],
    );
    assert.equal(result.content, '');
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_opener')));
  });

  it('reports a reply cut mid-arguments as truncated', () => {
    const result = extractToolCalls('get_weather[ARGS]{"city": "Pa', { tools: TOOLS, truncated: true });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('leaves prose about the token alone', () => {
    const text = 'Mistral emits [TOOL_CALLS] before each call.';
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(result.calls, []);
    assert.equal(result.content, text);
    assert.deepEqual(result.diagnostics, []);
  });
});
