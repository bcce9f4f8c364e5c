import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { CALL_FAILURE_CODES } from '../types.ts';
import type { ExtractOptions, RepairKind } from '../types.ts';

const tools: ExtractOptions['tools'] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string' } },
      required: ['city'],
    },
  },
  'search_web',
];
const run = (text: string, options: Partial<ExtractOptions> = {}) => extractToolCalls(text, { tools, ...options });
const calls = (text: string) => run(text).calls.map((c) => [c.name, c.arguments]);
const repairsOf = (text: string): RepairKind[] => run(text).diagnostics.flatMap((d) => d.repairs ?? []);
const PARIS = [['get_weather', { city: 'Paris' }]];

describe('shapes without a family', () => {
  it('reads a declared name followed by its arguments in any grammar (declared_name_call)', () => {
    for (const text of [
      'get_weather {"city": "Paris"}',
      'get_weather({"city": "Paris"})',
      'get_weather: {city: "Paris"}',
      'get_weather\n<parameter=city>Paris</parameter>',
      'get_weather\n<arg_key>city</arg_key><arg_value>Paris</arg_value>',
      'get_weather city="Paris"',
      'Let me check.\nget_weather {"city": "Paris"}',
    ]) {
      assert.deepEqual(calls(text), PARIS, text);
      assert.ok(repairsOf(text).includes('declared_name_call'), text);
    }
    assert.equal(run('Let me check.\nget_weather {"city": "Paris"}').content, 'Let me check.');
  });

  it('reads a tag named after a declared tool whose children are its parameters (tool_named_tag)', () => {
    for (const text of [
      '<get_weather><city>Paris</city></get_weather>',
      '<get_weather city="Paris"/>',
      '<get_weather>\n{"city": "Paris"}\n</get_weather>',
    ]) {
      assert.deepEqual(calls(text), PARIS, text);
      assert.ok(repairsOf(text).includes('tool_named_tag'), text);
    }
    // A child that is no parameter of the schema: markup, not arguments, and the model is told.
    const stranger = run('<get_weather><town>Paris</town></get_weather>');
    assert.deepEqual(stranger.calls, []);
    assert.deepEqual(
      stranger.diagnostics.map((d) => d.code),
      ['malformed_call'],
    );
    assert.match(stranger.diagnostics[0]?.message ?? '', /"town" is not a parameter of "get_weather"/);
  });

  it('reads a transcript line naming a declared tool with its arguments (transcript_call)', () => {
    for (const text of [
      'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}',
      'Calling get_weather with {"city": "Paris"}',
      'Tool: get_weather\nArguments: {"city": "Paris"}',
      'assistant to=get_weather: {"city": "Paris"}',
    ]) {
      assert.deepEqual(calls(text), PARIS, text);
      assert.ok(repairsOf(text).includes('transcript_call'), text);
    }
  });

  it('reads a family call with its special tokens stripped or replaced (detokenized_skeleton)', () => {
    for (const text of [
      'functions.get_weather:0 {"city":"Paris"}',
      'tool_call_begin get_weather tool_sep {"city":"Paris"} tool_call_end',
      'function<|tool sep|>get_weather\n```json\n{"city":"Paris"}\n```',
      'TOOL_CALLS get_weather [ARGS] {"city": "Paris"}',
    ]) {
      assert.deepEqual(calls(text), PARIS, text);
      assert.ok(repairsOf(text).includes('detokenized_skeleton'), text);
    }
  });

  it('never makes a call of prose, a name in backticks, an example or a sentence', () => {
    for (const text of [
      'I will call get_weather to check the weather in Paris.',
      'Use `get_weather` for this.',
      'Use `get_weather {"city": "Paris"}` for this.',
      'For example:\nget_weather {"city": "Paris"}',
      'I called get_weather with {"city": "Paris"} and it said 18°C.',
      'You could call get_weather(city="Paris") yourself.',
      'The get_weather {"city": "Paris"} call is what you want.',
      '> get_weather {"city": "Paris"}',
      '```\nget_weather {"city": "Paris"}\n```',
      'get_weather {"city": "Paris"} returns the weather.',
      '<get_weather> is the tool for that.',
    ]) {
      const result = run(text);
      assert.deepEqual(result.calls, [], text);
      assert.ok(
        !result.diagnostics.some((d) => CALL_FAILURE_CODES.includes(d.code)),
        `${text}: ${result.diagnostics.map((d) => d.code).join(', ')}`,
      );
    }
  });

  it('reports a name in call position whose arguments cannot be read, with where and what was expected', () => {
    const text = 'get_weather {"city": "Paris" "unit": }';
    const [d] = run(text).diagnostics;
    assert.equal(d?.code, 'invalid_json');
    assert.equal(d?.name, 'get_weather');
    assert.equal(typeof d?.position, 'number');
    assert.match(d?.message ?? '', /Expected a JSON object of arguments/);
    const cut = run('get_weather {"city": "Par');
    assert.deepEqual(cut.calls, []);
    assert.deepEqual(
      cut.diagnostics.map((x) => x.code),
      ['truncated'],
    );
    // A broken closer in the middle leaves markup unread: a failure, never a call without "unit".
    const xml = run(
      'get_weather\n<parameter=city>Paris</parameter>\n<parameter=unit>C</paramter>\n<parameter=x>1</parameter>',
    );
    assert.deepEqual(
      xml.calls.map((c) => c.arguments),
      [],
    );
  });

  it('says so when a declared name and an opener in a sentence are not a call', () => {
    const result = run('You could call get_weather(city="Paris") yourself.');
    assert.deepEqual(
      result.diagnostics.map((d) => d.code),
      ['ignored_example'],
    );
    assert.equal(result.diagnostics[0]?.position, 'You could call '.length);
  });
});

describe('shapes: properties', () => {
  const word = fc.constantFrom(
    'the',
    'weather',
    'in',
    'Paris',
    'is',
    'get_weather',
    'search_web',
    'call',
    'I',
    'will',
    'use',
    'today',
    '.',
    ',',
    'and',
    'Action:',
    '\n',
  );
  it('prose of words and declared names without argument openers never yields a call or a failure', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (words) => {
        const result = run(words.join(' '));
        return result.calls.length === 0 && !result.diagnostics.some((d) => CALL_FAILURE_CODES.includes(d.code));
      }),
      { numRuns: 300 },
    );
  });

  it('a declared name followed by `{` always yields a call or a diagnostic', () => {
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 10 }),
        fc.string({ maxLength: 30 }),
        fc.array(word, { maxLength: 10 }),
        (before, inner, after) => {
          const result = run(`${before.join(' ')} get_weather {${inner} ${after.join(' ')}`);
          return result.calls.length > 0 || result.diagnostics.length > 0;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stays linear on a flood of declared names and openers', () => {
    const text = 'get_weather {'.repeat(80_000);
    const started = performance.now();
    run(text);
    // Linear is well under a second even on a loaded machine; 80,000 names read against each other would be
    // billions of steps. The bound only catches that (absolute speed is the benchmark's job).
    assert.ok(performance.now() - started < 10_000);
  });
});
