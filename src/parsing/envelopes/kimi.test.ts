import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import { findKimiCalls } from './kimi.ts';

const SECTION_BEGIN = '<|tool_calls_section_begin|>';
const SECTION_END = '<|tool_calls_section_end|>';
const BEGIN = '<|tool_call_begin|>';
const ARG = '<|tool_call_argument_begin|>';
const END = '<|tool_call_end|>';
const call = (id: string, args: string): string => `${BEGIN}${id}${ARG}${args}${END}`;
const TOOLS = ['get_weather', 'search'];

describe('findKimiCalls', () => {
  it('reads a section of calls with raw names, one payload each', () => {
    const text =
      `I'll check. ${SECTION_BEGIN}${call('functions.get_weather:0', '{"city": "Beijing"}')}` +
      `${call('functions.search:1', '{"q": "x"}')}${SECTION_END}`;
    const [env, ...rest] = findKimiCalls(text);
    assert.equal(rest.length, 0);
    assert.deepEqual(env?.span, { start: text.indexOf(SECTION_BEGIN), end: text.length });
    assert.equal(env?.repairs, undefined);
    const [first, second] = env?.payloads ?? [];
    assert.ok(first?.kind === 'named' && second?.kind === 'named');
    assert.equal(first.name, 'functions.get_weather:0');
    assert.equal(second.name, 'functions.search:1');
    assert.ok(first.args.kind === 'json');
    assert.equal(text.slice(first.args.span.start, first.args.span.end), '{"city": "Beijing"}');
  });

  it('accepts the singular section spelling and spaces around the name', () => {
    const text =
      `<|tool_call_section_begin|>${BEGIN} functions.get_weather:0 ` +
      `${ARG} {"city": "X"} ${END}<|tool_call_section_end|>`;
    const [env] = findKimiCalls(text);
    assert.equal(env?.span.end, text.length);
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.name, 'functions.get_weather:0');
  });

  it('reads a call whose section opener is missing, as a repair', () => {
    const text = `${call('functions.get_weather:0', '{"city": "Beijing"}')}${SECTION_END}`;
    const [env] = findKimiCalls(text);
    assert.deepEqual(env?.repairs, ['missing_opener']);
    assert.deepEqual(env?.span, { start: 0, end: text.length });
  });

  it('records a missing section end and a missing call end', () => {
    const text = `${SECTION_BEGIN}${BEGIN}functions.get_weather:0${ARG}{"city": "Beijing"}\nLet me know.`;
    const [env] = findKimiCalls(text);
    assert.deepEqual(env?.repairs?.sort(), ['missing_closer']);
    // The call ends with its JSON: the sentence after it is content.
    assert.equal(text.slice(env?.span.end), '\nLet me know.');
    assert.equal(env?.unclosed, false);
  });

  it('records a misspelled call end and a leaked end-of-turn token', () => {
    const text =
      `${SECTION_BEGIN}${BEGIN}functions.get_weather:0${ARG}{"city": ` +
      `"Beijing"}<|tool_call_end|${SECTION_END}<|im_end|>`;
    const [env] = findKimiCalls(text);
    assert.deepEqual(env?.repairs?.sort(), ['broken_closer', 'leaked_sentinel']);
    assert.equal(env?.span.end, text.length);
  });

  it('marks arguments cut at the end of the text', () => {
    const [env] = findKimiCalls(`${SECTION_BEGIN}${BEGIN}functions.get_weather:0${ARG}{"city": "Bei`);
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
    assert.equal(env?.unclosed, true);
  });

  it('says what is wrong with a call it cannot read', () => {
    const noArgumentMarker = findKimiCalls(`${BEGIN}functions.get_weather:0 {"city": "X"}${END}`)[0]?.payloads[0];
    assert.ok(noArgumentMarker?.kind === 'malformed');
    assert.match(noArgumentMarker.message, /tool_call_argument_begin/);
    const notObject = findKimiCalls(`${BEGIN}functions.get_weather:0${ARG}Paris${END}`)[0]?.payloads[0];
    assert.ok(notObject?.kind === 'malformed');
    assert.match(notObject.message, /not a JSON object/);
    const empty = findKimiCalls(`${SECTION_BEGIN}nothing here${SECTION_END}`)[0]?.payloads[0];
    assert.ok(empty?.kind === 'malformed');
  });

  it('ignores the tokens mentioned in prose or quoted as inline code', () => {
    assert.deepEqual(findKimiCalls('Kimi writes `<|tool_call_begin|>` before each call.'), []);
    assert.deepEqual(findKimiCalls('Kimi writes <|tool_call_begin|> before each call.'), []);
  });

  it('never takes DeepSeek tokens', () => {
    assert.deepEqual(
      findKimiCalls('<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "X"}<｜tool▁call▁end｜>'),
      [],
    );
  });

  it('reads a flood of tokens up to the envelope cap (its cost is measured by npm run bench)', () => {
    const text = `${BEGIN}${ARG}{`.repeat(20_000);
    assert.ok(findKimiCalls(text).length <= 256);
  });
});

// End to end. Names come raw from the finder (`functions.get_weather:0`); these
// expectations rely on the central name cleaning to call `get_weather`.
describe('extractToolCalls with Kimi K2 tokens', () => {
  it('returns the calls with clean names and the text before the section as content', () => {
    const text =
      `I'll check. ${SECTION_BEGIN}${call('functions.get_weather:0', '{"city": "Beijing"}')}` +
      `${call('functions.search:1', '{"q": "x"}')}${SECTION_END}`;
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [
        ['get_weather', { city: 'Beijing' }],
        ['search', { q: 'x' }],
      ],
    );
    assert.equal(result.content, "I'll check.");
    assert.ok(!result.diagnostics.some((d) => d.repairs?.includes('missing_opener')));
  });

  it('passes arguments encoded as a JSON string on, decoded by the resolver', () => {
    const inner = JSON.stringify({ todos: [{ id: 'a', status: 'in_progress' }], note: 'say "hi" <|x|>' });
    const text = `${SECTION_BEGIN}${call('functions.TodoWrite:1', JSON.stringify(inner))}${SECTION_END}`;
    const payload = findKimiCalls(text)[0]?.payloads[0];
    assert.ok(payload?.kind === 'named' && payload.args.kind === 'json');
    assert.equal(text.slice(payload.args.span.start, payload.args.span.end), JSON.stringify(inner));
    const result = extractToolCalls(text, { tools: ['TodoWrite'] });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['TodoWrite', JSON.parse(inner)]],
    );
    assert.ok(result.diagnostics.some((d) => d.code === 'decoded_string_arguments'));
    const cut = extractToolCalls(`${SECTION_BEGIN}${BEGIN}functions.TodoWrite:1${ARG}"{\\"todos\\": [`, {
      tools: ['TodoWrite'],
      truncated: true,
    });
    assert.deepEqual(cut.calls, []);
    assert.ok(cut.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('repairs a missing section opener', () => {
    const result = extractToolCalls(`${call('get_weather:0', '{"city": "Beijing"}')}${SECTION_END}`, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => c.name),
      ['get_weather'],
    );
    assert.equal(result.content, '');
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_opener')));
  });

  it('repairs a missing closer at the end of a finished reply', () => {
    const result = extractToolCalls(`${SECTION_BEGIN}${BEGIN}functions.get_weather:0${ARG}{"city": "Beijing"}`, {
      tools: TOOLS,
    });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Beijing' }]],
    );
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_closer')));
  });

  it('reports a reply cut mid-arguments as truncated, with no call', () => {
    const result = extractToolCalls(`${SECTION_BEGIN}${BEGIN}functions.get_weather:0${ARG}{"city": "Bei`, {
      tools: TOOLS,
      truncated: true,
    });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('tells the model about a call it could not read', () => {
    const result = extractToolCalls(`${SECTION_BEGIN}${BEGIN}functions.get_weather:0${ARG}Paris${END}${SECTION_END}`, {
      tools: TOOLS,
    });
    assert.deepEqual(result.calls, []);
    const diagnostic = result.diagnostics.find((d) => d.code === 'malformed_call');
    assert.ok(diagnostic?.span !== undefined);
  });

  it('leaves prose about the tokens alone', () => {
    for (const text of [
      'Kimi writes `<|tool_call_begin|>` before each call.',
      'The section starts with <|tool_calls_section_begin|> and then lists calls.',
    ]) {
      const result = extractToolCalls(text, { tools: TOOLS });
      assert.deepEqual(result.calls, [], text);
      assert.equal(result.content, text);
    }
  });
});
