import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envelopeFamily } from './envelope-family.ts';

describe('envelopeFamily', () => {
  it('names the format of the calls written in a reply', () => {
    const cases: [string, string][] = [
      ['<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get', 'deepseek'],
      ['<|tool_calls_section_begin|> <|tool_call_begin|> functions.get:0', 'kimi'],
      ['<|channel|>commentary to=functions.get <|message|>{}<|call|>', 'harmony'],
      ['[TOOL_CALLS][{"name": "get", "arguments": {}}]', 'mistral'],
      ['<|python_tag|>{"name": "get", "parameters": {}}', 'llama'],
      ['```tool_code\nget(x=1)\n```', 'gemma'],
      ['<minimax:tool_call><invoke name="get"></invoke></minimax:tool_call>', 'minimax'],
      ['<|tool_call|>[{"name": "get", "arguments": {}}]', 'granite'],
      ['<tool_call>\n<function=get>\n<parameter=x>1</parameter>\n</function>\n</tool_call>', 'qwen3_coder'],
      ['<tool_call>get<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>', 'glm'],
      ['<tool_call>{"name": "get", "arguments": {}}</tool_call>', 'hermes'],
      ['<function=get>{"x": 1}</function>', 'function_tag'],
      ['<function_calls><invoke name="get"></invoke></function_calls>', 'xml'],
      ['Sure: {"name": "get", "arguments": {}}', 'json'],
      ['Paris is the capital of France.', 'text'],
    ];
    for (const [text, family] of cases) assert.equal(envelopeFamily(text), family, text);
  });
});
