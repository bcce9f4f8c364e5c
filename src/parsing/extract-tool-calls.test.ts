import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonShape } from '../core/json-shape.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import type { ExtractOptions } from './types.ts';

const TOOLS = ['get_weather', 'search_web', { name: 'list_devices', hasRequiredArgs: false }];
const run = (text: string, options: Partial<ExtractOptions> = {}) =>
  extractToolCalls(text, { tools: TOOLS, ...options });
const codes = (text: string, options: Partial<ExtractOptions> = {}): string[] =>
  run(text, options).diagnostics.map((d) => d.code);

describe('extractToolCalls', () => {
  it('returns each call with its raw text and span', () => {
    const text =
      'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\nOne moment.';
    const result = run(text);
    assert.equal(result.calls.length, 1);
    const [call] = result.calls;
    assert.ok(call);
    assert.deepEqual([call.name, call.arguments], ['get_weather', { city: 'Paris' }]);
    assert.equal(text.slice(call.span.start, call.span.end), call.raw);
    assert.ok(call.raw.startsWith('<tool_call>') && call.raw.endsWith('</tool_call>'));
    assert.equal(result.content, 'Checking.\n\nOne moment.');
  });

  it('keeps calls in text order across envelope families', () => {
    const text =
      '[TOOL_CALLS]search_web[ARGS]{"query": "a"}\n<tool_call>{"name": ' +
      '"get_weather", "arguments": {"city": "b"}}</tool_call>';
    assert.deepEqual(
      run(text).calls.map((c) => c.name),
      ['search_web', 'get_weather'],
    );
  });

  describe('precision', () => {
    it('never returns a call to an undeclared tool, and names it in the diagnostic', () => {
      const result = run('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>');
      assert.deepEqual(result.calls, []);
      assert.deepEqual(
        result.diagnostics.map((d) => [d.code, d.name]),
        [['unknown_tool', 'rm_rf']],
      );
    });

    it('needs an arguments object for bare JSON, unless the tool takes none', () => {
      assert.deepEqual(run('{"name": "get_weather"}').calls, []);
      assert.deepEqual(codes('{"name": "get_weather"}'), ['missing_arguments']);
      assert.deepEqual(
        run('{"name": "list_devices"}').calls.map((c) => c.arguments),
        [{}],
      );
      assert.deepEqual(
        run('<tool_call>{"name": "get_weather"}</tool_call>').calls.map((c) => c.arguments),
        [{}],
      );
    });

    it('does not report JSON data whose name is not a tool name', () => {
      assert.deepEqual(run('{"name": "Alice Martin", "age": 34}'), {
        calls: [],
        content: '{"name": "Alice Martin", "age": 34}',
        diagnostics: [],
      });
    });

    it('ignores examples and keeps them in the content', () => {
      const text = 'For example: {"name": "get_weather", "arguments": {"city": "Paris"}}';
      const result = run(text);
      assert.deepEqual(result.calls, []);
      assert.equal(result.content, text);
      assert.deepEqual(
        result.diagnostics.map((d) => d.code),
        ['ignored_example'],
      );
    });

    it('ignores anything inside reasoning blocks', () => {
      assert.deepEqual(run('<think>call {"name": "get_weather", "arguments": {"city": "x"}}</think>Hi!'), {
        calls: [],
        content: '<think>call {"name": "get_weather", "arguments": {"city": "x"}}</think>Hi!',
        diagnostics: [],
      });
    });
  });

  describe('truncation', () => {
    const cut = '<tool_call>{"name": "search_web", "arguments": {"query": "long que';

    it('drops a call cut by the token limit and says so', () => {
      const result = run(cut, { truncated: true });
      assert.deepEqual(result.calls, []);
      assert.deepEqual(
        result.diagnostics.map((d) => [d.code, d.name]),
        [['truncated', 'search_web']],
      );
      assert.equal(result.content, '');
    });

    it('never closes a cut value into a call, even when the reply was not truncated', () => {
      const result = run(cut);
      assert.deepEqual(result.calls, []);
      assert.deepEqual(
        result.diagnostics.map((d) => [d.code, d.name]),
        [['truncated', 'search_web']],
      );
      const calls = (text: string) => run(text).calls.map((c) => [c.name, c.arguments]);
      // Only brackets after a complete value close: nothing is invented.
      assert.deepEqual(calls('<tool_call>{"name": "search_web", "arguments": {"query": "long queue"'), [
        ['search_web', { query: 'long queue' }],
      ]);
      for (const tail of [
        '{"query": "x", "limit": 12',
        '{"query": "x", "limit":',
        '{"query": "x",',
        '{"query": "x", "lim',
        '{',
      ]) {
        assert.deepEqual(calls(`<tool_call>{"name": "search_web", "arguments": ${tail}`), [], tail);
      }
    });

    it('keeps complete calls before the cut one', () => {
      const text = `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n${cut}`;
      const result = run(text, { truncated: true });
      assert.deepEqual(
        result.calls.map((c) => c.name),
        ['get_weather'],
      );
      assert.deepEqual(codes(text, { truncated: true }), ['truncated']);
    });
  });

  it('reports invalid JSON with the position of the problem', () => {
    const text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris" "x": }}</tool_call>';
    const [diagnostic] = run(text).diagnostics;
    assert.equal(diagnostic?.code, 'invalid_json');
    assert.equal(diagnostic?.position, text.indexOf('"x"'));
    assert.equal(diagnostic?.name, 'get_weather');
  });

  it('reports repairs and decoded string arguments', () => {
    assert.deepEqual(codes("{'name': 'get_weather', 'arguments': {'city': 'Paris',}}"), ['repaired']);
    assert.deepEqual(codes('{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}'), [
      'decoded_string_arguments',
    ]);
  });

  it('uses the answer of a structured reply as its content', () => {
    assert.deepEqual(run('{"tool_calls": [], "answer": "Sunny."}'), { calls: [], content: 'Sunny.', diagnostics: [] });
  });

  it('caps the number of calls and diagnostics on a flood', () => {
    const flood = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'.repeat(500);
    const result = run(flood);
    assert.equal(result.calls.length, 128);
    assert.ok(result.diagnostics.some((d) => d.code === 'limit_reached'));
    const junk = run('<tool_call>{"name": "nope", "arguments": {}}</tool_call>'.repeat(500));
    assert.ok(junk.diagnostics.length <= 50);
  });

  describe('limits', () => {
    const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

    it('refuses arguments nested deeper than 64 levels in any envelope, instead of returning them', () => {
      for (const text of [
        `<tool_call>{"name": "get_weather", "arguments": {"city": ${deep(80)}}}</tool_call>`,
        `<tool_call>{"name": "get_weather", "arguments": ${JSON.stringify(`{"city": ${deep(10_000)}}`)}}</tool_call>`,
        `[TOOL_CALLS]get_weather[ARGS]{"city": ${deep(80)}}`,
        `<function=get_weather><parameter=city>${deep(80)}</parameter></function>`,
        `{"name": "get_weather", "arguments": {"city": ${deep(80)}}}`,
      ]) {
        const result = run(text);
        assert.deepEqual(result.calls, [], text.slice(0, 40));
        const diagnostic = result.diagnostics.find((d) => d.code === 'invalid_arguments');
        assert.ok(diagnostic, `no invalid_arguments for ${text.slice(0, 40)}: ${JSON.stringify(result.diagnostics)}`);
        assert.match(diagnostic.message, /deeper than 64 levels/);
        assert.equal(diagnostic.name, 'get_weather');
      }
    });

    it('reports JSON nested past the reading limit as invalid, with the limit', () => {
      const result = run(`<tool_call>{"name": "get_weather", "arguments": {"city": ${deep(10_000)}}}</tool_call>`);
      assert.deepEqual(result.calls, []);
      assert.equal(result.diagnostics[0]?.code, 'invalid_json');
      assert.match(result.diagnostics[0]?.message ?? '', /deeper than 128 levels/);
    });

    it('refuses numbers out of range instead of passing Infinity on', () => {
      for (const text of [
        '<tool_call>{"name": "get_weather", "arguments": {"days": 1e400}}</tool_call>',
        '{"name": "get_weather", "arguments": {"days": -1e400}}',
        '[TOOL_CALLS]get_weather[ARGS]{"days": 1e400}',
        '<|python_tag|>get_weather(days=1e400)<|eom_id|>',
        '<tool_call>{"name": "get_weather", "arguments": "{\\"days\\": 1e400}"}</tool_call>',
      ]) {
        const result = run(text);
        assert.deepEqual(result.calls, [], text);
        assert.ok(
          result.diagnostics.some((d) => /out of range/.test(d.message)),
          `${text}: ${JSON.stringify(result.diagnostics)}`,
        );
      }
    });

    it('keeps a value out of range in an XML parameter as text (validation then refuses it)', () => {
      const result = run('<function=get_weather><parameter=days>1e400</parameter></function>');
      assert.deepEqual(
        result.calls.map((c) => c.arguments),
        [{ days: '1e400' }],
      );
    });
  });

  it('never throws on pathological input', () => {
    const deepCall = (open: string, close: string): string =>
      `{"name": "get_weather", "arguments": {"a": ${open.repeat(50_000)}${close.repeat(50_000)}}}`;
    for (const text of [
      deepCall('[', ']'),
      deepCall('{"a":', '}'),
      `<tool_call>${deepCall("{'a':", '}')}</tool_call>`,
      `[get_weather(a=${'['.repeat(100_000)})]`,
      '{'.repeat(200_000),
      '"'.repeat(200_000),
      '[TOOL_CALLS]'.repeat(20_000),
      '<tool_call>{'.repeat(20_000),
      '`'.repeat(100_000),
      '<｜tool▁call▁begin｜>'.repeat(10_000),
      '\u0000\uffff\ud800',
    ]) {
      const result = run(text);
      assert.ok(Array.isArray(result.calls));
      for (const call of result.calls) assert.equal(checkJsonShape(call.arguments), undefined);
    }
  });
});

describe('extractToolCalls: bare calls and precision rules', () => {
  const calls = (text: string) => run(text).calls.map((c) => [c.name, c.arguments]);

  it('a bare name(key=value) is a call only when it is the whole reply and names a declared tool', () => {
    assert.deepEqual(calls("get_weather(city='Paris')"), [['get_weather', { city: 'Paris' }]]);
    assert.deepEqual(calls('  get_weather(city=\'Paris\')\nsearch_web(query="x")\n'), [
      ['get_weather', { city: 'Paris' }],
      ['search_web', { query: 'x' }],
    ]);
    assert.deepEqual(calls("Sure: get_weather(city='Paris')"), []);
    assert.deepEqual(calls("get_weather(city='Paris')\nDone."), []);
    assert.deepEqual(calls('send_email(to="a@b.c")'), []);
    assert.deepEqual(calls('get_weather(city=\'Paris\')\nsend_email(to="a")'), []);
    assert.deepEqual(run('send_email(to="a@b.c")').diagnostics, []);
  });

  it('a tool definition is not a call', () => {
    const definition =
      '{"type": "function", "function": {"name": "get_weather", "description": "Weather", ' +
      '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}';
    assert.deepEqual(calls(definition), []);
    assert.deepEqual(
      calls('{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object"}}'),
      [],
    );
    // A call whose arguments happen to hold a "description" stays a call.
    assert.deepEqual(calls('{"name": "search_web", "arguments": {"query": "x", "description": "y"}}'), [
      ['search_web', { query: 'x', description: 'y' }],
    ]);
  });

  it('Gemini functionCall objects are calls', () => {
    assert.deepEqual(calls('{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}'), [
      ['get_weather', { city: 'Oslo' }],
    ]);
  });

  it('a template with ... placeholders is not a call, and a strong envelope holding one says so', () => {
    assert.deepEqual(calls('{"name": "get_weather", "arguments": {...}}'), []);
    const tagged = run('<tool_call>{"name": "get_weather", "arguments": {"city": …}}</tool_call>');
    assert.deepEqual(tagged.calls, []);
    assert.match(tagged.diagnostics[0]?.message ?? '', /placeholder/);
    assert.deepEqual(calls('{"name": "search_web", "arguments": {"query": "wait..."}}'), [
      ['search_web', { query: 'wait...' }],
    ]);
  });

  it('bare JSON the reply ends inside after prose is cut, not repaired into a call', () => {
    assert.deepEqual(calls('The log said: {"name": "get_weather", "arguments": {"city": "Paris"}'), []);
    assert.deepEqual(codes('The log said: {"name": "get_weather", "arguments": {"city": "Paris"}'), ['truncated']);
    // A reply that is only the JSON keeps the repair.
    assert.deepEqual(calls('{"name": "get_weather", "arguments": {"city": "Paris"}'), [
      ['get_weather', { city: 'Paris' }],
    ]);
  });

  it('tool: lines inside a code block are data', () => {
    assert.deepEqual(calls('```yaml\ntool: get_weather\narguments:\n  city: Paris\n```'), []);
    assert.deepEqual(calls('tool: list_devices'), [['list_devices', {}]]);
  });

  it('a lead-in naming a format makes an example; one saying the call follows in it does not', () => {
    const block = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>';
    assert.deepEqual(calls(`The tool call format:\n${block}`), []);
    assert.ok(codes(`The tool call format:\n${block}`).includes('ignored_example'));
    assert.deepEqual(calls(`Here is the call in the required format:\n${block}`), [['get_weather', { city: 'Rome' }]]);
    assert.deepEqual(calls(`Result[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}`), [['get_weather', { city: 'Rome' }]]);
  });

  it('"Final Answer" with text is an answer; with arguments it is a call to an undeclared tool', () => {
    assert.equal(run('{"action": "Final Answer", "action_input": "It is sunny."}').content, 'It is sunny.');
    assert.deepEqual(codes('<tool_call>{"name": "final_answer", "arguments": {"done": true}}</tool_call>'), [
      'unknown_tool',
    ]);
  });

  it('a JSON-RPC method that is no tool is silent; tools/call and a declared method are calls', () => {
    assert.deepEqual(run('{"jsonrpc": "2.0", "method": "initialize", "params": {"capabilities": {}}}').diagnostics, []);
    assert.deepEqual(
      calls(
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' +
          '{"name": "get_weather", "arguments": {"city": "Bonn"}}}',
      ),
      [['get_weather', { city: 'Bonn' }]],
    );
    assert.deepEqual(calls('{"method": "get_weather", "params": {"city": "Bonn"}}'), [
      ['get_weather', { city: 'Bonn' }],
    ]);
    assert.deepEqual(calls('{"method": "GET", "url": "https://x", "params": {"city": "Bonn"}}'), []);
  });
});
