import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { CALL_FAILURE_CODES } from '../types.ts';
import { findDelimiterTokens } from './special-body.ts';
import { findMarkers } from './special-envelope.ts';

// Markers invented for these tests: no family lists them, so only the general mechanism can read them.
const tools = ['get_weather', 'get_time'];
const calls = (text: string, truncated = false) => extractToolCalls(text, { tools, truncated });
const failures = (text: string) =>
  calls(text).diagnostics.filter((d) => (CALL_FAILURE_CODES as readonly string[]).includes(d.code));

describe('special-token-like markers around a declared call', () => {
  it('finds <|…|>, <|…>, <…|>, call-word tags and [UPPER] markers, not string delimiters or plain tags', () => {
    const found = findMarkers('<|zz_begin|> <|zz> <zz|> <open_tool_x> [ZZ_CALL] <|"|> <b> <escape> [a]').map(
      (m) => m.text,
    );
    assert.deepEqual(found, ['<|zz_begin|>', '<|zz>', '<zz|>', '<open_tool_x>', '[ZZ_CALL]']);
  });

  it('reads a pythonic list, a name-keyed JSON list and call: + object literal inside unknown markers', () => {
    const a = calls('<|zz_begin|>[get_weather(city="Paris"), get_time()]<|zz_end|>');
    assert.deepEqual(
      a.calls.map((c) => [c.name, c.arguments]),
      [
        ['get_weather', { city: 'Paris' }],
        ['get_time', {}],
      ],
    );
    assert.equal(a.content, '');
    assert.ok(a.diagnostics.some((d) => d.repairs?.includes('unknown_envelope')));
    const b = calls('Sure. <|zz_pre|>[{"get_weather": {"city": "Rome"}}]<|zz_post|>');
    assert.deepEqual(
      b.calls.map((c) => c.arguments),
      [{ city: 'Rome' }],
    );
    assert.equal(b.content, 'Sure.');
    const c = calls('<qq_tool_open>invoke:get_weather{city:<qq>New York<qq>,days:<qq>3<qq>}<qq_tool_close>');
    assert.deepEqual(
      c.calls.map((x) => x.arguments),
      [{ city: 'New York', days: '3' }],
    );
    const d = calls('<|zz>do:get_weather(city: "Oslo")<zz|>');
    assert.deepEqual(
      d.calls.map((x) => x.arguments),
      [{ city: 'Oslo' }],
    );
  });

  it('ends a call without a closer where its structure closes: prose after it stays content', () => {
    const r = calls('<|zz_calls|>[{"get_weather": {"city": "Paris"}}] and then I will answer.');
    assert.deepEqual(
      r.calls.map((c) => c.arguments),
      [{ city: 'Paris' }],
    );
    assert.equal(r.content, 'and then I will answer.');
  });

  it('reports a cut call as truncated, never closes it', () => {
    const r = calls('<|zz_calls|>[{"get_weather": {"city": "Paris"}', true);
    assert.deepEqual(r.calls, []);
    assert.deepEqual(
      r.diagnostics.map((d) => d.code),
      ['truncated'],
    );
  });

  it('reports an unreadable body around a declared name with position and expectation', () => {
    const [failure] = failures('<|zz_begin|>get_weather{city: Paris"}<|zz_end|>');
    assert.equal(failure?.code, 'malformed_call');
    assert.equal(typeof failure?.position, 'number');
    assert.match(failure?.message ?? '', /Expected a declared tool's name followed by its arguments/);
  });

  it('leaves prose, undeclared names, chat-turn tokens and inline code alone', () => {
    for (const text of [
      '<|im_start|>assistant\nThe weather is fine.<|im_end|>',
      '<|zz_begin|>[other_tool(x=1)]<|zz_end|>',
      'I will use get_weather later, <|zz|> is a token.',
      'The model writes `<|zz_begin|>[get_weather(city="Paris")]<|zz_end|>` when it calls.',
      '<b>get_weather</b>',
    ]) {
      const r = calls(text);
      assert.deepEqual(r.calls, [], text);
      assert.deepEqual(
        r.diagnostics.filter((d) => (CALL_FAILURE_CODES as readonly string[]).includes(d.code)),
        [],
        text,
      );
    }
  });
});

describe('findDelimiterTokens', () => {
  it('finds tokens used in pairs where values start and end, not other tags', () => {
    const text = '{a:<qq>x<qq>, b:[<zz>y<zz>], c:<tag>}';
    assert.deepEqual(findDelimiterTokens(text, { start: 0, end: text.length }), [
      ['<qq>', '<qq>'],
      ['<zz>', '<zz>'],
    ]);
    const none = '{a: "x", b: <br> text}';
    assert.deepEqual(findDelimiterTokens(none, { start: 0, end: none.length }), []);
  });
});
