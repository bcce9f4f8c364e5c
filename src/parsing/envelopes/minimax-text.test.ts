import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import { findMinimaxTextCalls } from './minimax-text.ts';

const CALL = '[TOOL_CALL]\n{tool => "get_weather", args => {\n  --city "Paris"\n  --days 3\n}}\n[/TOOL_CALL]';
const TOOLS = ['get_weather', 'search'];

describe('findMinimaxTextCalls', () => {
  it('reads --key values: quoted strings, numbers, booleans and JSON', () => {
    const text =
      '[TOOL_CALL]\n{tool => "get_weather", args => {\n  --city "Paris, \\"FR\\""\n  --days ' +
      '3\n  --hourly false\n  --fields ["temp", "wind"]\n  --note \'hi\'\n}}\n[/TOOL_CALL]';
    const [env] = findMinimaxTextCalls(text);
    assert.deepEqual(env?.span, { start: 0, end: text.length });
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named' && payload.args.kind === 'object');
    assert.equal(payload.name, 'get_weather');
    assert.deepEqual(payload.args.value, {
      city: 'Paris, "FR"',
      days: 3,
      hourly: false,
      fields: ['temp', 'wind'],
      note: 'hi',
    });
  });

  it('reads args written as a JSON object', () => {
    const payload = findMinimaxTextCalls('[TOOL_CALL]\n{tool => "search", args => {"q": "x"}}\n[/TOOL_CALL]')[0]
      ?.payloads[0];
    assert.ok(payload?.kind === 'named' && payload.args.kind === 'json');
  });

  it('reads args written as a JSON5-style object with bare keys or single quotes', () => {
    for (const args of ['{path: "README.md"}', "{'path': 'README.md'}", '{ path: "README.md", lines: [1, 2] }']) {
      const text = `[TOOL_CALL]\n{tool => "read_file", args => ${args}}\n[/TOOL_CALL]`;
      const [env] = findMinimaxTextCalls(text);
      const payload = env?.payloads[0];
      assert.ok(payload?.kind === 'named' && payload.args.kind === 'json', args);
      assert.equal(text.slice(payload.args.span.start, payload.args.span.end), args);
      assert.equal(env?.span.end, text.length);
      const result = extractToolCalls(text, { tools: ['read_file'] });
      assert.equal(result.calls[0]?.arguments.path, 'README.md', args);
      assert.equal(result.content, '');
    }
  });

  it('records a missing closer, and a missing opener at the start of a line', () => {
    const noCloser = findMinimaxTextCalls(CALL.replace('\n[/TOOL_CALL]', '\nDone.'));
    assert.deepEqual(noCloser[0]?.repairs, ['missing_closer']);
    const text = `Sure.\n${CALL.replace('[TOOL_CALL]\n', '')}`;
    const [env] = findMinimaxTextCalls(text);
    assert.deepEqual(env?.repairs, ['missing_opener']);
    assert.equal(env?.span.start, text.indexOf('{tool'));
  });

  it('reads calls in a row, the next opener never taken for a broken closer', () => {
    const text = `${CALL.replace('\n[/TOOL_CALL]', '')}\n${CALL.replace('get_weather', 'search')}`;
    const envelopes = findMinimaxTextCalls(text);
    assert.deepEqual(
      envelopes.map((env) => env.repairs),
      [['missing_closer'], undefined],
    );
    assert.equal(envelopes[1]?.span.start, text.lastIndexOf('[TOOL_CALL]'));
  });

  it('marks a call cut at the end', () => {
    const [env] = findMinimaxTextCalls('[TOOL_CALL]\n{tool => "get_weather", args => {\n  --city "Pa');
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
    assert.equal(env?.unclosed, true);
  });

  it('says where a call could not be read', () => {
    const payload = findMinimaxTextCalls(
      '[TOOL_CALL]\n{tool => "get_weather", args => {\n  city: Paris\n}}\n[/TOOL_CALL]',
    )[0]?.payloads[0];
    assert.ok(payload?.kind === 'malformed');
    assert.match(payload.message, /position \d+: expected "--key value"/);
    const nothing = findMinimaxTextCalls('[TOOL_CALL]\nhello\n[/TOOL_CALL]')[0]?.payloads[0];
    assert.ok(nothing?.kind === 'malformed');
  });

  it('leaves a hash in prose and Mistral markers alone', () => {
    assert.deepEqual(findMinimaxTextCalls('In Perl, {tool => "x"} is a hash.'), []);
    assert.deepEqual(findMinimaxTextCalls('[TOOL_CALLS]get_weather[ARGS]{}'), []);
  });
});

describe('extractToolCalls with MiniMax text calls', () => {
  it('returns the call and the text around it', () => {
    const result = extractToolCalls(`Checking.\n${CALL}\nOne moment.`, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris', days: 3 }]],
    );
    assert.equal(result.content, 'Checking.\n\nOne moment.');
  });

  it('repairs a missing opener and a missing closer', () => {
    const result = extractToolCalls('{tool => "get_weather", args => {\n  --city "Paris"\n}}', { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => c.name),
      ['get_weather'],
    );
    const repairs = result.diagnostics.find((d) => d.code === 'repaired')?.repairs ?? [];
    assert.ok(repairs.includes('missing_opener') && repairs.includes('missing_closer'));
  });

  it('reports a reply cut mid-arguments as truncated', () => {
    const result = extractToolCalls('[TOOL_CALL]\n{tool => "get_weather", args => {\n  --city "Pa', {
      tools: TOOLS,
      truncated: true,
    });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('tells the model about a call it could not read', () => {
    const result = extractToolCalls('[TOOL_CALL]\n{tool => "get_weather", args => {\n  city: Paris\n}}\n[/TOOL_CALL]', {
      tools: TOOLS,
    });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'malformed_call' && d.span !== undefined));
  });
});
