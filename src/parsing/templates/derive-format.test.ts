import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadTemplates } from '../../../test/fixtures/templates/templates.ts';
import type { CallFormat } from '../formats/call-format.ts';
import { deriveFormat } from './derive-format.ts';

type Expected = Omit<CallFormat, 'id' | 'origin' | 'description'> | { fails: RegExp };

/**
 * What each real template's calls look like, checked by hand against its
 * rendering: the whole derived format must match, so a change in the
 * analysis that moves any marker shows up here.
 */
const EXPECTED: Record<string, Expected> = {
  'Apertus-8B-Instruct.jinja': {
    section: { begin: '<|tools_prefix|>', end: '<|tools_suffix|>' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'key' },
  },
  'ByteDance-Seed-OSS.jinja': { fails: /^the template failed to render: Object keys must be strings/ },
  'CohereForAI-c4ai-command-r-plus-tool_use.jinja': {
    section: { begin: 'Action:\n```json', end: '```' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'tool_name', argumentsKey: 'parameters' },
  },
  'CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja': {
    section: { begin: '<|START_ACTION|>', end: '<|END_ACTION|>' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'tool_name', argumentsKey: 'parameters' },
  },
  'GLM-4.6.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'child', keyTag: 'arg_key', valueTag: 'arg_value' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'GLM-4.7-Flash.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'child', keyTag: 'arg_key', valueTag: 'arg_value' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'GigaChat3.1-10B-A1.8B.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<|function_call|>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'HuggingFaceTB-SmolLM3-3B.jinja': { fails: /^the template does not render tool_calls of an assistant message$/ },
  'Kimi-K2-Instruct.jinja': {
    section: { begin: '<|tool_calls_section_begin|>', end: '<|tool_calls_section_end|>' },
    arguments: { grammar: 'json' },
    call: { begin: '<|tool_call_begin|>', end: '<|tool_call_end|>' },
    name: { slot: 'marker', after: '<|tool_call_argument_begin|>' },
  },
  'Kimi-K2-Thinking.jinja': {
    section: { begin: '<|tool_calls_section_begin|>', end: '<|tool_calls_section_end|>' },
    arguments: { grammar: 'json' },
    call: { begin: '<|tool_call_begin|>', end: '<|tool_call_end|>' },
    name: { slot: 'marker', after: '<|tool_call_argument_begin|>' },
  },
  'LFM2.5-8B-A1B.jinja': {
    section: { begin: '<|tool_call_start|>', end: '<|tool_call_end|>' },
    list: true,
    arguments: { grammar: 'key_value' },
    call: { begin: '' },
    name: { slot: 'call' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'MiniMax-M2.jinja': {
    section: { begin: '<minimax:tool_call>', end: '</minimax:tool_call>' },
    arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: 'parameter', attribute: 'name' } },
    call: { begin: '<invoke name="', end: '</invoke>' },
    name: { slot: 'marker', after: '">' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'Mistral-Small-3.2-24B-Instruct-2506.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '[TOOL_CALLS]' },
    name: { slot: 'marker', after: '[ARGS]' },
  },
  'NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'equals', tag: 'parameter' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker', before: '<function=', after: '>' },
    argumentsEnd: '</function>',
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'NVIDIA-Nemotron-Nano-v2.jinja': {
    section: { begin: '<TOOLCALL>', end: '</TOOLCALL>' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'Qwen-QwQ-32B.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'Qwen-Qwen2.5-7B-Instruct.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'Qwen-Qwen3-0.6B.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'Qwen3-Coder.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'equals', tag: 'parameter' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker', before: '<function=', after: '>' },
    argumentsEnd: '</function>',
  },
  'Qwen3.5-4B.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'equals', tag: 'parameter' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker', before: '<function=', after: '>' },
    argumentsEnd: '</function>',
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja': {
    section: { begin: '<｜tool▁calls▁begin｜>', end: '<｜tool▁calls▁end｜>' },
    arguments: { grammar: 'json' },
    call: { begin: '<｜tool▁call▁begin｜>function<｜tool▁sep｜>', end: '<｜tool▁call▁end｜>' },
    name: { slot: 'marker', after: '```json' },
    argumentsEnd: '```',
  },
  'deepseek-ai-DeepSeek-V3.1.jinja': {
    section: { begin: '<｜tool▁calls▁begin｜>', end: '<｜tool▁calls▁end｜>' },
    arguments: { grammar: 'json' },
    call: { begin: '<｜tool▁call▁begin｜>', end: '<｜tool▁call▁end｜>' },
    name: { slot: 'marker', after: '<｜tool▁sep｜>' },
  },
  'deepseek-ai-DeepSeek-V3.2.jinja': {
    section: { begin: '<｜DSML｜function_calls>', end: '</｜DSML｜function_calls>' },
    arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: '｜DSML｜parameter', attribute: 'name' } },
    call: { begin: '<｜DSML｜invoke name="', end: '</｜DSML｜invoke>' },
    name: { slot: 'marker', after: '">' },
  },
  'google-gemma-4-31B-it.jinja': {
    arguments: { grammar: 'object_literal', stringDelimiters: [['<|"|>', '<|"|>']], unquotedKeys: true },
    call: { begin: '<|tool_call>', end: '<tool_call|>' },
    name: { slot: 'marker', before: 'call:' },
  },
  'ibm-granite-granite-4.0.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'meetkai-functionary-medium-v3.1.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<function=', end: '</function>' },
    name: { slot: 'marker', after: '>' },
  },
  'meta-llama-Llama-3.1-8B-Instruct.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'parameters' },
  },
  'meta-llama-Llama-3.2-3B-Instruct.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'parameters' },
  },
  'microsoft-Phi-3.5-mini-instruct.jinja': {
    fails: /^the template does not render tool_calls of an assistant message$/,
  },
  'mistralai-Ministral-3-14B-Reasoning-2512.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '[TOOL_CALLS]' },
    name: { slot: 'marker', after: '[ARGS]' },
  },
  'mistralai-Mistral-Nemo-Instruct-2407.jinja': {
    section: { begin: '[TOOL_CALLS]' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'moonshotai-Kimi-K2.jinja': {
    section: { begin: '<|tool_calls_section_begin|>', end: '<|tool_calls_section_end|>' },
    arguments: { grammar: 'json' },
    call: { begin: '<|tool_call_begin|>', end: '<|tool_call_end|>' },
    name: { slot: 'marker', after: '<|tool_call_argument_begin|>' },
  },
  'openai-gpt-oss-120b.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: 'to=', end: '<|call|>' },
    name: { slot: 'marker', after: '<|channel|>commentary json<|message|>' },
    reasoning: { begin: '<|channel|>analysis<|message|>', end: '<|end|><|start|>assistant<|channel|>final<|message|>' },
  },
  'stepfun-ai-Step-3.5-Flash.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'equals', tag: 'parameter' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker', before: '<function=', after: '>' },
    argumentsEnd: '</function>',
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'unsloth-mistral-Devstral-Small-2507.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '[TOOL_CALLS]' },
    name: { slot: 'marker', after: '[ARGS]' },
  },
  'upstage-Solar-Open-100B.jinja': {
    section: { begin: '<|tool_calls|>', end: '<|calls|>' },
    arguments: { grammar: 'json' },
    call: { begin: '<|tool_call:begin|>', end: '<|tool_call:end|>' },
    name: { slot: 'marker', before: '<|tool_call:name|>', after: '<|tool_call:args|>' },
  },
  'GigaChat3-10B-A1.8B.jinja': {
    arguments: { grammar: 'json' },
    call: { begin: '<|message_sep|>\n\nfunction call<|role_sep|>' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'GigaChat3.5.jinja': {
    section: { begin: '<｜GCML｜tool_calls>', end: '</｜GCML｜tool_calls>' },
    arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: '｜GCML｜parameter', attribute: 'name' } },
    call: { begin: '<｜GCML｜invoke name="', end: '</｜GCML｜invoke>' },
    name: { slot: 'marker', after: '">' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'Kimi-K3.jinja': {
    section: { begin: '<|open|>tools<|sep|>', end: '<|close|>tools<|sep|>' },
    arguments: {
      grammar: 'xml',
      parameters: {
        form: 'attribute',
        tag: 'argument',
        attribute: 'key',
        syntax: { open: '<|open|>', end: '<|sep|>', close: '<|close|>' },
      },
    },
    call: { begin: '<|open|>call tool="', end: '<|close|>call<|sep|>' },
    name: { slot: 'marker', after: '"', tagEnd: '<|sep|>' },
    reasoning: { begin: '<|open|>think<|sep|>', end: '<|close|>think<|sep|>' },
  },
  'MiroThinker-v1.jinja': { fails: /^the template does not parse as Jinja: Unknown statement type: endfor$/ },
  'StepFun3.7-Flash.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'equals', tag: 'parameter' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker', before: '<function=', after: '>' },
    argumentsEnd: '</function>',
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'gemma4.jinja': {
    arguments: { grammar: 'object_literal', stringDelimiters: [['<|"|>', '<|"|>']], unquotedKeys: true },
    call: { begin: '<|tool_call>', end: '<tool_call|>' },
    name: { slot: 'marker', before: 'call:' },
  },
  'glm_4_5.jinja': {
    arguments: { grammar: 'xml', parameters: { form: 'child', keyTag: 'arg_key', valueTag: 'arg_value' } },
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker' },
    reasoning: { begin: '<think>', end: '</think>' },
  },
  'Apriel-1.6-15b-Thinker-fixed.jinja': {
    fails: /^the template failed to render: Unknown ObjectValue filter: string$/,
  },
  'unsloth-Apriel-1.5.jinja': { fails: /^the template failed to render: Unknown ObjectValue filter: string$/ },
  'google-gemma-4-31B-it-interleaved.jinja': {
    arguments: { grammar: 'object_literal', stringDelimiters: [['<|"|>', '<|"|>']], unquotedKeys: true },
    call: { begin: '<|tool_call>', end: '<tool_call|>' },
    name: { slot: 'marker', before: 'call:' },
  },
  'llama-cpp-lfm2.jinja': {
    section: { begin: '<|tool_call_start|>', end: '<|tool_call_end|>' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'nvidia-Llama-3_3-Nemotron-Super-49B-v1_5.jinja': {
    section: { begin: '<TOOLCALL>', end: '</TOOLCALL>' },
    list: true,
    arguments: { grammar: 'json' },
    call: { begin: '' },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  },
  'llama-cpp-microsoft-Phi-4-mini-instruct.jinja': {
    fails: /^the template failed to render: Expected iterable or object type in for loop: got UndefinedValue$/,
  },
  'mistralai-Mistral-Small-3.1-24B-Instruct-2503.jinja': {
    fails: /^the template does not parse as Jinja: Unexpected escaped character: \n$/,
  },
  'vllm-tool_chat_template_olmo3.jinja': {
    fails: /^the template does not parse as Jinja: Parser Error: Expected closing statement token/,
  },
};

describe('deriveFormat on real chat templates', () => {
  const templates = loadTemplates();

  it('has an expectation for every fixture, and 30 or more fixtures', () => {
    assert.deepEqual(
      templates.map((t) => t.file),
      Object.keys(EXPECTED).sort(),
    );
    assert.ok(templates.length >= 30);
  });

  for (const { file, source } of templates) {
    it(file, () => {
      const expected = EXPECTED[file];
      const result = deriveFormat(source, { id: file });
      if (expected !== undefined && 'fails' in expected) {
        assert.equal(result.ok, false);
        if (!result.ok) assert.match(result.reason, expected.fails);
        return;
      }
      assert.ok(result.ok, result.ok ? '' : result.reason);
      const { id, origin, description, ...format } = result.format;
      assert.equal(id, `template:${file}`);
      assert.equal(origin, 'template');
      assert.equal(typeof description, 'string');
      assert.deepEqual(format, expected);
    });
  }
});

describe('deriveFormat notes what it left out', () => {
  const source = (file: string): string => loadTemplates().find((t) => t.file === file)?.source ?? '';

  it('Kimi: the functions. prefix and the :N index are left to name cleaning', () => {
    const result = deriveFormat(source('moonshotai-Kimi-K2.jinja'));
    assert.ok(result.ok);
    assert.ok(result.notes.some((n) => n.includes('"functions."')));
    assert.ok(result.notes.some((n) => n.includes('index or id')));
  });

  it('Llama 3.1: one call per turn, so no separator is known', () => {
    const result = deriveFormat(source('meta-llama-Llama-3.1-8B-Instruct.jinja'));
    assert.ok(result.ok);
    assert.ok(result.notes.some((n) => n.includes('one call per turn')));
  });
});

describe('deriveFormat on broken and hostile templates', () => {
  it('a template that is not Jinja', () => {
    const result = deriveFormat('{% for x in %}');
    assert.deepEqual(result.ok, false);
    if (!result.ok) assert.match(result.reason, /^the template does not parse as Jinja/);
  });

  it('an empty template', () => {
    assert.deepEqual(deriveFormat('  '), { ok: false, reason: 'the template is empty' });
  });

  it('a template that raises', () => {
    const result = deriveFormat("{{ raise_exception('Only user and assistant roles are supported') }}");
    assert.deepEqual(result, {
      ok: false,
      reason: 'the template raised an error: Only user and assistant roles are supported',
    });
  });

  it('a template without tool calls', () => {
    const result = deriveFormat(
      '{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% ' +
        'endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}',
    );
    assert.deepEqual(result, { ok: false, reason: 'the template does not render tool_calls of an assistant message' });
  });

  it('a huge range stops at once', () => {
    const started = performance.now();
    const result = deriveFormat('{% for i in range(1000000000) %}x{% endfor %}');
    assert.ok(performance.now() - started < 2000);
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /range\(\) of 1000000000 items/);
  });

  it('nested loops run out of steps', () => {
    const started = performance.now();
    const result = deriveFormat(
      '{% for i in range(5000) %}{% for j in range(5000) %}{% ' +
        'for k in range(5000) %}x{% endfor %}{% endfor %}{% endfor %}',
    );
    assert.ok(performance.now() - started < 5000);
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /^rendering was stopped: the template took more than \d+ steps/);
  });

  it('a string doubled until it is huge is stopped', () => {
    const result = deriveFormat(
      '{% set ns = namespace(s="ab") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}',
    );
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /string longer than/);
  });

  it('runaway macro recursion is stopped', () => {
    const result = deriveFormat('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}');
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /rendering was stopped|recursed too deeply/);
  });
});
