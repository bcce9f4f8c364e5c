import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';
import type { ExtractionResult } from '../types.ts';
import { findXmlCalls } from './xml-finders.ts';

const TOOLS = ['get_weather', 'read_file', { name: 'get_time', hasRequiredArgs: false }];
const run = (text: string, truncated = false): ExtractionResult => extractToolCalls(text, { tools: TOOLS, truncated });
const calls = (text: string, truncated = false): unknown[] =>
  run(text, truncated).calls.map((c) => [c.name, c.arguments]);
const repairs = (text: string): string[] =>
  run(text).diagnostics.flatMap((d) => (d.code === 'repaired' ? (d.repairs ?? []) : [`(${d.code})`]));
const only = (text: string) => {
  const envelopes = findXmlCalls(text);
  assert.equal(envelopes.length, 1);
  return envelopes[0] as NonNullable<(typeof envelopes)[0]>;
};

const PARIS = [['get_weather', { city: 'Paris' }]];

describe("XML families: one grammar, each family's exact tags", () => {
  it('Hermes/Qwen JSON, Granite and Phi-4-mini', () => {
    assert.deepEqual(
      calls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'),
      PARIS,
    );
    assert.equal(only('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]').family, 'granite');
    assert.deepEqual(repairs('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'), []);
    assert.deepEqual(
      calls('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|/tool_call|>'),
      PARIS,
    );
  });

  it('Qwen3-Coder and Llama 3.1 function tags', () => {
    const text =
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
    assert.equal(only(text).family, 'qwen3_coder');
    assert.deepEqual(calls(text), PARIS);
    assert.deepEqual(repairs(text), []);
    assert.equal(only('<function=get_weather>{"city": "Paris"}</function>').family, 'function_tag');
    assert.deepEqual(repairs('<function=get_weather>{"city": "Paris"}</function>'), []);
  });

  it('GLM-4.5 pairs and GLM-4 name + JSON', () => {
    assert.deepEqual(
      calls('<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>'),
      PARIS,
    );
    assert.deepEqual(
      calls('<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>'),
      PARIS,
    );
    assert.deepEqual(calls('<tool_call>get_weather\n{"city": "Paris"}</tool_call>'), PARIS);
  });

  it('MiniMax-M2, with spans of each invoke', () => {
    const text =
      'Checking.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter ' +
      'name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>';
    const env = only(text);
    assert.equal(env.family, 'minimax');
    assert.equal(text.slice(env.span.start, env.span.end), text.slice('Checking.\n'.length));
    const payload = env.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(
      text.slice(payload.span.start, payload.span.end),
      '<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>',
    );
    assert.equal(run(text).content, 'Checking.');
  });

  it('DeepSeek V3.2 DSML with its typing attribute, and its ASCII look-alike', () => {
    const text =
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="location" ' +
      ('string="true">Beijing</｜DSML｜parameter>\n<｜DSML｜parameter ' +
        'name="days" string="false">3</｜DSML｜parameter>\n<｜DSML｜parameter ' +
        ('name="code" string="true">042</｜DSML｜parameter>\n<｜DSML｜parameter name="n" ' +
          'string="true">7</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>'));
    assert.equal(only(text).family, 'deepseek_dsml');
    assert.deepEqual(calls(text), [['get_weather', { location: 'Beijing', days: 3, code: '042', n: '7' }]]);
    assert.deepEqual(repairs(text), []);
    assert.deepEqual(calls(text.replaceAll('｜', '|')), calls(text));
  });

  it('Anthropic-style function_calls, and parameters written as their own tags', () => {
    assert.equal(
      only(
        '<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter></invoke></function_calls>',
      ).family,
      'xml',
    );
    assert.deepEqual(
      calls(
        '<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter></invoke></function_calls>',
      ),
      PARIS,
    );
    assert.deepEqual(
      calls(
        '<function_calls>\n<invoke ' +
          'name="get_weather">\n<city>Paris</city>\n<days>2</days>\n</invoke>\n</function_calls>',
      ),
      [['get_weather', { city: 'Paris', days: 2 }]],
    );
  });
});

describe('XML families: calls recognised from their inner markers', () => {
  it('a missing opener', () => {
    const qwen = '<function=get_weather><parameter=city>Paris</parameter></function></tool_call>';
    assert.deepEqual(calls(qwen), PARIS);
    assert.deepEqual(repairs(qwen), ['missing_opener']);
    assert.deepEqual(only(qwen).span, { start: 0, end: qwen.length });
    const minimax = '<invoke name="get_weather"><parameter name="city">Paris</parameter></invoke></minimax:tool_call>';
    assert.equal(only(minimax).family, 'minimax');
    assert.deepEqual(repairs(minimax), ['missing_opener']);
    const glm = 'Sure.\nget_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>';
    assert.deepEqual(calls(glm), PARIS);
    assert.deepEqual(repairs(glm), ['missing_opener']);
    assert.equal(run(glm).content, 'Sure.');
    assert.deepEqual(repairs('<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>'), [
      'missing_opener',
    ]);
  });

  it('a broken or missing closer', () => {
    assert.deepEqual(
      repairs('<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call'),
      ['broken_closer'],
    );
    assert.deepEqual(
      repairs('<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function\n</tool_call>'),
      ['broken_closer'],
    );
    assert.deepEqual(repairs('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}<tool_call>'), [
      'broken_closer',
    ]);
    assert.deepEqual(
      repairs('<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>'),
      ['missing_closer'],
    );
    assert.deepEqual(
      repairs(
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter ' +
          'name="city">Paris</parameter>\n</minimax:tool_call>',
      ),
      ['missing_closer'],
    );
    const open =
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\nAnything else?';
    assert.deepEqual(calls(open), PARIS);
    assert.deepEqual(repairs(open), ['missing_closer']);
    assert.equal(run(open).content, 'Anything else?');
  });

  it('a closer inside a JSON string does not end the call', () => {
    assert.deepEqual(calls('<function=read_file>{"path": "x</function>y"}</function>'), [
      ['read_file', { path: 'x</function>y' }],
    ]);
  });

  it('namespaced tags', () => {
    assert.deepEqual(
      repairs('<foo:tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</foo:tool_call>'),
      ['namespaced_tags'],
    );
    const mm =
      '<minimax:tool_call><minimax:invoke name="get_weather"><minimax:parameter ' +
      'name="city">Paris</minimax:parameter></minimax:invoke></minimax:tool_call>';
    assert.deepEqual(calls(mm), PARIS);
    assert.deepEqual(repairs(mm), ['namespaced_tags']);
  });

  it('leaked sentinels after a value or a closer', () => {
    const text =
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis<|im_end|>\n</parameter>\n</function>\n</tool_call>';
    assert.deepEqual(calls(text), PARIS);
    assert.deepEqual(repairs(text), ['leaked_sentinel']);
    const after = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call><|im_end|>';
    assert.deepEqual(repairs(after), ['leaked_sentinel']);
    assert.equal(run(after).content, '');
    assert.deepEqual(
      calls('<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</s></arg_value>\n</tool_call>'),
      PARIS,
    );
    // Llama's own end token stays where it is.
    assert.deepEqual(repairs('<function=get_weather>{"city": "Paris"}</function><|eom_id|>'), []);
  });
});

describe('XML families: truncation and precision', () => {
  it('a call cut by the token limit is no call', () => {
    for (const text of [
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nPar',
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n',
      '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Par',
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par',
    ]) {
      assert.deepEqual(calls(text, true), [], text);
      assert.deepEqual(
        run(text, true).diagnostics.map((d) => d.code),
        ['truncated'],
        text,
      );
    }
    assert.deepEqual(calls('<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n'), PARIS);
  });

  it('prose, HTML and documentation are not calls', () => {
    for (const text of [
      'To call a tool, wrap it in a <tool_call> tag and put JSON inside.',
      '<div class="x"><p>Hello</p><parameter>x</parameter></div>',
      'Use <invoke name="get_weather">...</invoke> to call it.',
      'The syntax is <function=name> followed by JSON.',
      'For example:\n<function_calls><invoke name="get_weather"><parameter ' +
        'name="city">Paris</parameter></invoke></function_calls>',
      '<arg_key>city</arg_key> pairs go inside the block.',
    ]) {
      assert.deepEqual(run(text).calls, [], text);
    }
  });

  it('says what is wrong with a recognised envelope that yields no call', () => {
    const result = run('<function_calls><invoke><parameter name="city">Paris</parameter></invoke></function_calls>');
    assert.deepEqual(
      result.diagnostics.map((d) => [d.code, d.message]),
      [['malformed_call', 'An <invoke> tag has no name="…" attribute (at position 16).']],
    );
    assert.deepEqual(
      run('<minimax:tool_call>hello</minimax:tool_call>').diagnostics.map((d) => d.code),
      ['malformed_call'],
    );
  });

  it('never puts tags or whitespace in a name, never throws, and caps envelopes', () => {
    assert.deepEqual(findXmlCalls('<function=get weather>{"a": 1}</function>')[0]?.payloads[0]?.kind, 'malformed');
    assert.equal(findXmlCalls('<invoke name="a"></invoke>'.repeat(2000)).length, 256);
    // Floods are read up to the caps (their cost is measured by npm run bench, not here).
    assert.ok(findXmlCalls('<tool_call><function=a><parameter=b>'.repeat(20_000)).length <= 256);
    assert.ok(findXmlCalls('<tool_call>{"a": "'.repeat(20_000)).length <= 256);
  });
});
