import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';

// Issue 38, point 4: argument markup in an envelope is consumed whole, or the call fails — never a call missing an
// argument.
const tools = ['search', 'list_dir', 'noop', 'get_weather'];
const run = (text: string) => extractToolCalls(text, { tools });

describe('GLM pairs: every piece of markup is read', () => {
  it('repairs a missing <arg_value> opener and a doubled </arg_key> closer', () => {
    const a = run('<tool_call>search<arg_key>query</arg_key>how many days</arg_value></tool_call>');
    assert.deepEqual(
      a.calls.map((c) => c.arguments),
      [{ query: 'how many days' }],
    );
    assert.ok(a.diagnostics.some((d) => d.repairs?.includes('repaired_argument_markup')));
    const b = run('<tool_call>list_dir<arg_key>path</arg_key></arg_key><arg_value>/tmp/x</arg_value></tool_call>');
    assert.deepEqual(
      b.calls.map((c) => c.arguments),
      [{ path: '/tmp/x' }],
    );
  });

  it('reads a no-argument call followed by a stray closer', () => {
    assert.deepEqual(
      run('<tool_call>noop</arg_value>').calls.map((c) => [c.name, c.arguments]),
      [['noop', {}]],
    );
    assert.deepEqual(
      run('<tool_call>noop</arg_value></tool_call>').calls.map((c) => [c.name, c.arguments]),
      [['noop', {}]],
    );
  });

  it('fails a key without a value, and a stray tag after the pairs, with position and expectation', () => {
    const a = run('<tool_call>search<arg_key>query</arg_key><arg_key>x</arg_key><arg_value>1</arg_value></tool_call>');
    assert.deepEqual(a.calls, []);
    assert.equal(a.diagnostics[0]?.code, 'malformed_call');
    assert.equal(a.diagnostics[0]?.position, 41);
    assert.match(a.diagnostics[0]?.message ?? '', /expected <arg_value>…<\/arg_value> with the value of "query"/);
    const b = run('<tool_call>search<arg_key>query</arg_key><arg_value>a</arg_value></arg_value></tool_call>');
    assert.deepEqual(b.calls, []);
    assert.equal(b.diagnostics[0]?.code, 'malformed_call');
  });
});

describe('Mistral [ARGS] in another grammar', () => {
  it('reads key=value arguments instead of dropping them', () => {
    const r = run('[TOOL_CALLS]get_weather[ARGS]city="Paris"');
    assert.deepEqual(
      r.calls.map((c) => c.arguments),
      [{ city: 'Paris' }],
    );
    assert.equal(r.content, '');
  });

  it('fails arguments that read in no grammar', () => {
    const r = run('[TOOL_CALLS]get_weather[ARGS]city=Paris, oops(');
    assert.deepEqual(r.calls, []);
    assert.equal(r.diagnostics[0]?.code, 'invalid_json');
    assert.equal(typeof r.diagnostics[0]?.position, 'number');
  });
});

/** The only diagnostic is a malformed_call at `position` saying what was expected. */
function assertFails(text: string, position: number, expected: RegExp): void {
  const r = run(text);
  assert.deepEqual(r.calls, [], 'no call with an argument dropped');
  const d = r.diagnostics.find((x) => x.code === 'malformed_call');
  assert.ok(d !== undefined, `no malformed_call for ${text}`);
  assert.equal(d.position, position);
  assert.match(d.message, expected);
}

describe('Qwen3-Coder and <invoke> parameters: every piece of markup is read', () => {
  const qwen = (body: string) => `<tool_call>\n<function=search>\n${body}\n</function>\n</tool_call>`;
  const invoke = (body: string) =>
    `<minimax:tool_call>\n<invoke name="search">\n${body}\n</invoke>\n</minimax:tool_call>`;

  it('repairs a doubled </parameter> right after a closer', () => {
    for (const text of [
      qwen('<parameter=query>\nparis\n</parameter>\n</parameter>\n<parameter=limit>\n3\n</parameter>'),
      invoke('<parameter name="query">paris</parameter></parameter>\n<parameter name="limit">3</parameter>'),
    ]) {
      const r = run(text);
      assert.deepEqual(
        r.calls.map((c) => c.arguments),
        [{ query: 'paris', limit: 3 }],
      );
      assert.ok(r.diagnostics.some((d) => d.repairs?.includes('repaired_argument_markup')));
    }
  });

  it('fails text between parameters, a stray closer, a nameless parameter and a misspelled closer', () => {
    const between = qwen('<parameter=query>\nparis\n</parameter>\nsome text\n<parameter=limit>\n3\n</parameter>');
    assertFails(
      between,
      between.indexOf('some text'),
      /expected <parameter=NAME>value<\/parameter> for each argument, not text between them/,
    );
    const note = invoke('<parameter name="query">paris</parameter>\nnote\n<parameter name="limit">3</parameter>');
    assertFails(note, note.indexOf('note'), /not text between them/);
    const stray = invoke(
      '<parameter name="query">paris</parameter> and </parameter>\n<parameter name="limit">3</parameter>',
    );
    assertFails(stray, stray.indexOf('and'), /not text between them/);
    const nameless = invoke('<parameter name="">paris</parameter>');
    assertFails(nameless, nameless.indexOf('<parameter'), /expected a parameter name/);
    const bare = qwen('<parameter>\nparis\n</parameter>');
    assertFails(bare, bare.indexOf('<parameter>'), /expected a parameter name/);
    const typo = qwen('<parameter=query>\nparis\n</paramter>\n<parameter=limit>\n3\n</parameter>');
    assertFails(typo, typo.indexOf('</paramter>'), /expected <\/parameter> to close "query"/);
  });

  it('still repairs a closer left out before the next parameter', () => {
    const r = run(qwen('<parameter=query>\nparis\n<parameter=limit>\n3\n</parameter>'));
    assert.deepEqual(
      r.calls.map((c) => c.arguments),
      [{ query: 'paris', limit: 3 }],
    );
  });
});

describe('JSON arguments followed by more text before the closer', () => {
  const kimi = (args: string) =>
    `<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool` +
    `_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`;
  const v3 = (body: string) =>
    `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n${body}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
  const harmony = (args: string) =>
    `<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>${args}<|call|>`;

  it('Kimi: a doubled object or words after it fail; a leaked sentinel does not', () => {
    const doubled = kimi('{"query": "paris"}{"limit": 3}');
    assertFails(doubled, doubled.indexOf('{"limit"'), /expected <\|tool_call_end\|> right after the JSON object/);
    const words = kimi('{"query": "paris"} and more');
    assertFails(words, words.indexOf('and more'), /expected <\|tool_call_end\|>/);
    assert.deepEqual(
      run(kimi('{"query": "paris"}<|im_end|>')).calls.map((c) => c.arguments),
      [{ query: 'paris' }],
    );
  });

  it('DeepSeek: text after the fence, or two objects, fail', () => {
    const after = v3('```json\n{"query": "paris"}\n```\nextra text');
    assertFails(after, after.indexOf('extra'), /expected <｜tool▁call▁end｜> after the JSON object/);
    const two = v3('```json\n{"query": "paris"}\n{"limit": 3}\n```');
    assertFails(two, two.indexOf('{"limit"'), /expected <｜tool▁call▁end｜>/);
    assert.deepEqual(
      run(v3('```json\n{"query": "paris"}\n```')).calls.map((c) => c.arguments),
      [{ query: 'paris' }],
    );
  });

  it('Harmony: text after the JSON fails', () => {
    const text = harmony('{"query": "paris"} and then {"limit": 3}');
    assertFails(text, text.indexOf('and then'), /expected <\|call\|> right after the JSON object/);
  });

  it('a cut object before the closer is never given an invented value', () => {
    const r = run(kimi('{"query": '));
    assert.deepEqual(r.calls, []);
    assert.ok(r.diagnostics.some((d) => d.code === 'invalid_json'));
  });
});

describe('parameters whose call opener was lost', () => {
  it('are a malformed_call saying the opener is missing, never silent and never a call', () => {
    const text = '[Tool Use: search]\n<parameter name="query">paris</parameter>\n</invoke>\n</minimax:tool_call>';
    assertFails(
      text,
      text.indexOf('<parameter'),
      /expected <invoke name="TOOL"> before the first parameter \(the call's opener is missing\)/,
    );
    assert.equal(run(text).content, '[Tool Use: search]');
  });

  it('stay prose when no call closer follows them', () => {
    const r = run('Write <parameter name="x">v</parameter> inside the call.');
    assert.deepEqual([r.calls, r.diagnostics], [[], []]);
  });
});

describe('a value cut at the end of the text is truncated, never a call (its own closer never came)', () => {
  for (const text of [
    '<tool_call><function=get_weather><parameter=city>Par',
    '<function_calls><invoke name="get_weather"><parameter name="city">Par',
    '<tool_call>get_weather<arg_key>city</arg_key><arg_value>Par',
  ]) {
    it(text, () => {
      const r = run(text);
      assert.deepEqual(r.calls, []);
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['truncated'],
      );
    });
  }

  for (const text of [
    '<tool_call><function=get_weather><parameter=city>Paris</parameter>',
    '<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter>',
    '<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>',
  ]) {
    it(`only the envelope's closers missing is a repair: ${text}`, () => {
      const r = run(text);
      assert.deepEqual(
        r.calls.map((c) => [c.name, c.arguments]),
        [['get_weather', { city: 'Paris' }]],
      );
      assert.ok(r.diagnostics.some((d) => d.repairs?.includes('missing_closer')));
    });
  }
});
