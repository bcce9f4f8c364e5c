import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import { findGemmaCalls } from './gemma.ts';

const TOOLS = ['get_weather', 'search'];

describe('findGemmaCalls', () => {
  it('reads a ```tool_code block as pythonic calls over the whole fence', () => {
    const text = 'Let me look.\n```tool_code\nget_weather(city="Paris")\nsearch(q="x")\n```\nThanks.';
    const [env] = findGemmaCalls(text);
    assert.equal(
      text.slice(env?.span.start, env?.span.end),
      '```tool_code\nget_weather(city="Paris")\nsearch(q="x")\n```',
    );
    assert.equal(env?.strong, true);
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'pythonic');
    assert.equal(text.slice(payload.span.start, payload.span.end), 'get_weather(city="Paris")\nsearch(q="x")');
  });

  it('unwraps print(…) around each call', () => {
    const text = '```tool_code\nprint(get_weather(city="Paris"))\nprint(search(q="x"))\n```';
    const spans = findGemmaCalls(text)[0]?.payloads.map((p) =>
      p.kind === 'pythonic' ? text.slice(p.span.start, p.span.end) : p.kind,
    );
    assert.deepEqual(spans, ['get_weather(city="Paris")', 'search(q="x")']);
  });

  it('reads a block holding JSON as a JSON payload, never as pythonic calls', () => {
    const text = '```tool_code\n{"functionCall": {"name": "bash", "args": {"command": "echo hi"}}}\n```';
    const [env] = findGemmaCalls(text);
    assert.deepEqual(
      env?.payloads.map((p) => (p.kind === 'json' ? text.slice(p.span.start, p.span.end) : p.kind)),
      [text.slice(13, -4)],
    );
    const list = '```tool_code\n[{"name": "search", "arguments": {"q": "x"}}]\n```';
    assert.deepEqual(
      findGemmaCalls(list)[0]?.payloads.map((p) => p.kind),
      ['json'],
    );
    assert.deepEqual(
      extractToolCalls(list, { tools: TOOLS }).calls.map((c) => [c.name, c.arguments]),
      [['search', { q: 'x' }]],
    );
  });

  it('holds ```tool_output blocks as results with no payload', () => {
    const [env] = findGemmaCalls('```tool_output\n{"temp": 20}\n```');
    assert.deepEqual(env?.payloads, []);
  });

  it('records a missing closing fence and marks the block open', () => {
    const [env] = findGemmaCalls('```tool_code\nget_weather(city="Paris")');
    assert.deepEqual(env?.repairs, ['missing_closer']);
    assert.equal(env?.unclosed, true);
  });

  it('says what is wrong with a block that holds no call', () => {
    const payload = findGemmaCalls('```tool_code\nx = 1\n```')[0]?.payloads[0];
    assert.ok(payload?.kind === 'malformed');
    assert.match(payload.message, /holds no call/);
  });

  it('leaves other fences alone', () => {
    assert.deepEqual(findGemmaCalls('```python\nget_weather(city="Paris")\n```\nUse `tool_code` fences.'), []);
  });
});

describe('extractToolCalls with Gemma fences', () => {
  it('reads several calls, one per line or as a list', () => {
    for (const body of ['get_weather(city="Paris")\nsearch(q="x")', '[get_weather(city="Paris"), search(q="x")]']) {
      const result = extractToolCalls(`Let me look.\n\`\`\`tool_code\n${body}\n\`\`\``, { tools: TOOLS });
      assert.deepEqual(
        result.calls.map((c) => [c.name, c.arguments]),
        [
          ['get_weather', { city: 'Paris' }],
          ['search', { q: 'x' }],
        ],
        body,
      );
      assert.equal(result.content, 'Let me look.');
    }
  });

  it('never reads a call out of a ```tool_output block', () => {
    const text = '```tool_output\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nIt is sunny.';
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(result.calls, []);
    assert.equal(result.content, text);
  });

  it('repairs a missing closing fence at the end of a finished reply', () => {
    const result = extractToolCalls('```tool_code\nget_weather(city="Paris")', { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => c.name),
      ['get_weather'],
    );
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_closer')));
  });

  it('reports a reply cut mid-arguments as truncated', () => {
    const result = extractToolCalls('```tool_code\nget_weather(city="Pa', { tools: TOOLS, truncated: true });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('ignores a block shown as an example', () => {
    const result = extractToolCalls('For example:\n```tool_code\nget_weather(city="Paris")\n```', { tools: TOOLS });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'ignored_example'));
  });
});
