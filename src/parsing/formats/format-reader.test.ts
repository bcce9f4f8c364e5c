import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';
import type { ExtractionResult } from '../types.ts';
import { BUILTIN_FORMATS } from './builtin-formats.ts';
import type { CallFormat } from './call-format.ts';
import { renderCall } from './render-call.ts';

const WEATHER = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'number' } },
    required: ['city'],
  },
};
const tools = [WEATHER, 'get_time'];

function builtin(id: string): CallFormat {
  const format = BUILTIN_FORMATS.find((f) => f.id === id);
  assert.ok(format, id);
  return format;
}

function read(text: string, format: CallFormat, truncated = false): ExtractionResult {
  return extractToolCalls(text, { tools, formats: [format], truncated });
}

const calls = (r: ExtractionResult): unknown[] => r.calls.map((c) => ({ name: c.name, arguments: c.arguments }));
const codes = (r: ExtractionResult): string[] => r.diagnostics.map((d) => d.code);
const repairs = (r: ExtractionResult): string[] => r.diagnostics.flatMap((d) => d.repairs ?? []);

const FUNCTION_GEMMA: CallFormat = {
  id: 'function_gemma',
  origin: 'config',
  call: { begin: '<start_function_call>', end: '<end_function_call>' },
  name: { slot: 'marker', before: 'call:' },
  arguments: { grammar: 'object_literal', stringDelimiters: [['<escape>', '<escape>']], unquotedKeys: true },
};

describe('format reader', () => {
  it('reads every built-in format back from a rendering of itself (the table describes each family)', () => {
    const sample = [
      { name: 'get_weather', arguments: { city: 'Paris "centre"\nnord', days: 3 } },
      { name: 'get_time', arguments: {} },
    ];
    for (const format of BUILTIN_FORMATS) {
      const r = read(`Let me check.\n${renderCall(format, sample)}`, format);
      assert.deepEqual(calls(r), sample, format.id);
      assert.equal(r.content, 'Let me check.', format.id);
    }
  });

  it(
    'reads a marker name slot without `after`, with an object ' +
      'literal and custom string delimiters (FunctionGemma)',
    () => {
      const r = read(
        '<start_function_call>call:get_weather{city:<escape>Paris, "old" town<escape>, days:2}<end_function_call>',
        FUNCTION_GEMMA,
      );
      assert.deepEqual(calls(r), [{ name: 'get_weather', arguments: { city: 'Paris, "old" town', days: 2 } }]);
      assert.deepEqual(r.diagnostics, []);
    },
  );

  it(
    'reads a key name slot inside a section with a list ' + '(Apertus) and a field slot with other keys (Command R7B)',
    () => {
      const apertus: CallFormat = {
        id: 'apertus',
        origin: 'template',
        section: { begin: '<|tools_prefix|>', end: '<|tools_suffix|>' },
        call: { begin: '' },
        name: { slot: 'key' },
        arguments: { grammar: 'json' },
        list: true,
      };
      assert.deepEqual(
        calls(read('<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}, {"get_time": {}}]<|tools_suffix|>', apertus)),
        [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'get_time', arguments: {} },
        ],
      );
      const r7b: CallFormat = {
        id: 'r7b',
        origin: 'template',
        call: { begin: '<|START_ACTION|>', end: '<|END_ACTION|>' },
        name: { slot: 'field', nameKey: 'tool_name', argumentsKey: 'parameters' },
        arguments: { grammar: 'json' },
        list: true,
      };
      assert.deepEqual(
        calls(
          read(
            '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": ' +
              '"get_weather", "parameters": {"city": "Oslo"}}]<|END_ACTION|>',
            r7b,
          ),
        ),
        [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      );
    },
  );

  it('reads a pythonic list inside a section (LFM2) and calls separated by a separator', () => {
    const lfm2: CallFormat = {
      id: 'lfm2',
      origin: 'template',
      section: { begin: '<|tool_call_start|>', end: '<|tool_call_end|>' },
      call: { begin: '' },
      name: { slot: 'call' },
      arguments: { grammar: 'key_value' },
      list: true,
    };
    assert.deepEqual(
      calls(read('<|tool_call_start|>[get_weather(city="Rome", days=2), get_time()]<|tool_call_end|>', lfm2)),
      [
        { name: 'get_weather', arguments: { city: 'Rome', days: 2 } },
        { name: 'get_time', arguments: {} },
      ],
    );
    const sep: CallFormat = { ...builtin('hermes'), id: 'sep', separator: ';' };
    const r = read(
      '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>; ' +
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
      sep,
    );
    assert.equal(r.calls.length, 2);
    assert.equal(r.content, '');
  });

  it('types XML values by the schema: text where it wants a string, JSON where it wants more', () => {
    const r = read(
      '<tool_call><function=get_weather><parameter=city>\n007\n</para' +
        'meter><parameter=days>\n3\n</parameter></function></tool_call>',
      builtin('qwen3_coder'),
    );
    assert.deepEqual(calls(r), [{ name: 'get_weather', arguments: { city: '007', days: 3 } }]);
  });

  it('reads a call whose opener the serving stack ate, and one without its section opener, with missing_opener', () => {
    const mistral = read('get_weather[ARGS]{"city": "Paris"}', builtin('mistral'));
    assert.deepEqual(calls(mistral), [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    assert.deepEqual(repairs(mistral), ['missing_opener']);
    const kimi = read(
      '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": ' +
        '"Paris"}<|tool_call_end|><|tool_calls_section_end|>',
      builtin('kimi'),
    );
    assert.deepEqual(calls(kimi), [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    assert.ok(repairs(kimi).includes('missing_opener'));
    assert.equal(kimi.content, '');
  });

  it('reads a call whose closers are missing at the end of the reply, with missing_closer', () => {
    const r = read('<tool_call><function=get_weather><parameter=city>Paris</parameter>', builtin('qwen3_coder'));
    assert.deepEqual(calls(r), [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    assert.ok(repairs(r).includes('missing_closer'));
  });

  it('never turns arguments cut at the end into a call: truncated', () => {
    for (const [text, id] of [
      ['[TOOL_CALLS]get_weather[ARGS]{"city": "Par', 'mistral'],
      ['<tool_call><function=get_weather><parameter=city>Par', 'qwen3_coder'],
      ['<tool_call>{"name": "get_weather", "arguments": {"city": "P', 'hermes'],
    ] as const) {
      const r = read(text, builtin(id));
      assert.deepEqual(r.calls, [], text);
      assert.deepEqual(codes(r), ['truncated'], text);
      assert.equal(r.diagnostics[0]?.name, 'get_weather');
    }
  });

  it('says what it expected where, for an envelope that reads as nothing', () => {
    const r = read('[TOOL_CALLS]get_weather[ARGS]city=Paris', builtin('mistral'));
    assert.deepEqual(r.calls, []);
    assert.deepEqual(codes(r), ['malformed_call']);
    assert.match(r.diagnostics[0]?.message ?? '', /expected the arguments as JSON after `\[ARGS\]` \(at position 29/);
    assert.equal(r.diagnostics[0]?.position, 29);
  });

  it('never drops argument markup it did not read: left-over markup is malformed, not a call without it', () => {
    const r = read(
      '<tool_call><function=get_weather><parameter=city>Paris</param' +
        'eter>oops<parameter=days>3</parameter></function></tool_call>',
      builtin('qwen3_coder'),
    );
    assert.deepEqual(r.calls, []);
    assert.deepEqual(codes(r), ['malformed_call']);
    assert.match(
      r.diagnostics[0]?.message ?? '',
      /expected the arguments as <parameter=…>value<\/parameter> elements after `<function=get_weather>`/,
    );
  });

  it('sniffs the other grammars inside an envelope: the format says JSON, the model wrote XML or key=value', () => {
    assert.deepEqual(
      calls(read('[TOOL_CALLS]get_weather[ARGS]<parameter=city>Paris</parameter>', builtin('mistral'))),
      [{ name: 'get_weather', arguments: { city: 'Paris' } }],
    );
    assert.deepEqual(calls(read('[TOOL_CALLS]get_weather[ARGS](city="Paris")', builtin('mistral'))), [
      { name: 'get_weather', arguments: { city: 'Paris' } },
    ]);
    assert.deepEqual(calls(read('<tool_call>get_weather(city="Paris")</tool_call>', builtin('hermes'))), [
      { name: 'get_weather', arguments: { city: 'Paris' } },
    ]);
  });

  it('reports an unknown tool with a suggestion, and cleans names', () => {
    const r = read('[TOOL_CALLS]get_wether[ARGS]{"city": "Paris"}', builtin('mistral'));
    assert.deepEqual(r.calls, []);
    assert.equal(r.diagnostics[0]?.code, 'unknown_tool');
    assert.equal(r.diagnostics[0]?.suggestion, 'get_weather');
  });

  it('takes a marker written as inline code for prose', () => {
    const r = read('Write `[TOOL_CALLS]` then the name.', builtin('mistral'));
    assert.deepEqual(r, { calls: [], content: 'Write `[TOOL_CALLS]` then the name.', diagnostics: [] });
  });

  it('wins over a built-in envelope it overlaps', () => {
    // Hermes would read this `<tool_call>` as JSON and fail; the format reads its own grammar.
    const custom: CallFormat = {
      id: 'custom',
      origin: 'config',
      call: { begin: '<tool_call>', end: '</tool_call>' },
      name: { slot: 'marker', after: '::' },
      arguments: { grammar: 'key_value' },
    };
    const r = read('<tool_call>get_weather:: city="Paris"</tool_call>', custom);
    assert.deepEqual(calls(r), [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    assert.deepEqual(r.diagnostics, []);
  });
});

describe('sniffing inside built-in envelopes', () => {
  it('reads a body its family does not write, when it names a declared tool and reads whole', () => {
    for (const text of [
      "<tool_call>get_weather {city: 'Paris'}</tool_call>",
      '<tool_call>{get_weather: {city: "Paris"}}</tool_call>',
      '<tool_call>get_weather<parameter=city>Paris</parameter></tool_call>',
    ]) {
      const r = extractToolCalls(text, { tools });
      assert.deepEqual(calls(r), [{ name: 'get_weather', arguments: { city: 'Paris' } }], text);
      assert.equal(r.content, '', text);
    }
  });

  it('takes nothing that names no declared tool: the diagnostic stays', () => {
    const r = extractToolCalls('<tool_call>lookup {city: "Paris"}</tool_call>', { tools });
    assert.deepEqual(r.calls, []);
    assert.ok(r.diagnostics.length > 0);
  });
});

describe('stream filter with formats', () => {
  it('holds back a format envelope: it never reaches the streamed answer, however the text is split', async () => {
    const { createStreamFilter } = await import('../stream-filter.ts');
    const text = 'Checking.<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>';
    for (const size of [1, 2, 5, 13]) {
      const filter = createStreamFilter({ tools, formats: [FUNCTION_GEMMA] });
      let out = '';
      for (let i = 0; i < text.length; i += size) out += filter.push(text.slice(i, i + size));
      out += filter.end();
      assert.equal(out, 'Checking.', `deltas of ${size}`);
    }
  });
});
