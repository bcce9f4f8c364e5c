import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadTemplate } from '../../../test/fixtures/templates/templates.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { deriveFormat } from './derive-format.ts';
import { exampleCall, explainFormat } from './explain-format.ts';

describe('explainFormat', () => {
  it('says the markers, name slot, grammar and reasoning of a derived format', () => {
    const derived = deriveFormat(loadTemplate('Qwen3-Coder.jinja'), { id: 'Qwen3-Coder' });
    assert.ok(derived.ok);
    const text = explainFormat(derived.format);
    assert.match(text, /^Format template:Qwen3-Coder \(template\)/);
    assert.match(text, /Each call starts with "<tool_call>" and ends with "<\/tool_call>"\./);
    assert.match(text, /name is written between "<function=" and ">"/);
    assert.match(text, /one <parameter=KEY>VALUE<\/parameter> element per argument, followed by "<\/function>"/);
    assert.match(
      text,
      /Example: <tool_call><function=get_weather><parameter=city>Paris<\/parameter><\/function><\/tool_call>/,
    );
  });

  it('names the section, the list and the reasoning', () => {
    const derived = deriveFormat(loadTemplate('NVIDIA-Nemotron-Nano-v2.jinja'));
    assert.ok(derived.ok);
    const text = explainFormat(derived.format);
    assert.match(text, /between "<TOOLCALL>" and "<\/TOOLCALL>"/);
    assert.match(text, /written as a list/);
    assert.match(text, /Reasoning sits between "<think>" and "<\/think>"/);
  });

  it("writes tags in the format's own syntax, and the attributes after the name", () => {
    const derived = deriveFormat(loadTemplate('Kimi-K3.jinja'));
    assert.ok(derived.ok);
    const text = explainFormat(derived.format);
    assert.match(text, /then any other attributes up to "<\|sep\|>"/);
    assert.match(
      text,
      /one <\|open\|>argument key="KEY"<\|sep\|>VALUE<\|close\|>argument<\|sep\|> element per argument/,
    );
  });

  for (const file of [
    'Qwen-Qwen3-0.6B.jinja',
    'moonshotai-Kimi-K2.jinja',
    'GLM-4.6.jinja',
    'MiniMax-M2.jinja',
    'google-gemma-4-31B-it.jinja',
    'Kimi-K3.jinja',
  ]) {
    it(`its example for ${file} reads back with the format`, () => {
      const derived = deriveFormat(loadTemplate(file));
      assert.ok(derived.ok);
      const result = extractToolCalls(exampleCall(derived.format), {
        tools: ['get_weather'],
        formats: [derived.format],
      });
      assert.deepEqual(
        result.calls.map((c) => [c.name, c.arguments]),
        [['get_weather', { city: 'Paris' }]],
      );
    });
  }
});
