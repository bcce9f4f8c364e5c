import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import { findLlamaCalls } from './llama.ts';

describe('findLlamaCalls', () => {
  it('reads JSON after <|python_tag|> up to <|eom_id|>', () => {
    const text = '<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}<|eom_id|>';
    const [env] = findLlamaCalls(text);
    assert.equal(env?.span.end, text.length);
    assert.deepEqual(env?.payloads, [{ kind: 'json', span: { start: 14, end: 78 } }]);
  });

  it('reads built-in Python calls', () => {
    const [env] = findLlamaCalls('<|python_tag|>brave_search.call(query="x")<|eom_id|>');
    assert.equal(env?.payloads[0]?.kind, 'pythonic');
  });

  it('ends an unterminated tag with its JSON', () => {
    const text = '<|python_tag|>{"name": "a", "parameters": {}}\nThanks!';
    assert.equal(findLlamaCalls(text)[0]?.span.end, text.indexOf('\n'));
  });
});

describe('findLlamaCalls with Llama 4 python_start', () => {
  const TOOLS = ['get_weather', 'search'];

  it('reads pythonic calls between <|python_start|> and <|python_end|>', () => {
    const text = "<|python_start|>[get_weather(city='San Francisco', metric='celsius'), get_weather()]<|python_end|>";
    const [env] = findLlamaCalls(text);
    assert.deepEqual(env?.span, { start: 0, end: text.length });
    assert.equal(env?.payloads[0]?.kind, 'pythonic');
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [
        ['get_weather', { city: 'San Francisco', metric: 'celsius' }],
        ['get_weather', {}],
      ],
    );
    assert.equal(result.content, '');
  });

  it('reads JSON calls between the tokens', () => {
    const result = extractToolCalls('<|python_start|>{"name": "search", "parameters": {"q": "x"}}<|python_end|>', {
      tools: TOOLS,
    });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['search', { q: 'x' }]],
    );
    assert.equal(result.content, '');
  });

  it('ends calls whose <|python_end|> is missing with the calls themselves', () => {
    const text = '<|python_start|>[get_weather(city="a]b")]\nChecking now.';
    const [env] = findLlamaCalls(text);
    assert.equal(text.slice(env?.span.end), '\nChecking now.');
    assert.equal(env?.unclosed, false);
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'a]b' }]],
    );
    assert.equal(result.content, 'Checking now.');
  });
});

describe('extractToolCalls with Llama python_tag', () => {
  it('reads JSON and built-in calls and leaves the text after them', () => {
    const json = extractToolCalls('<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>', {
      tools: ['get_weather', 'brave_search'],
    });
    assert.deepEqual(
      json.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris' }]],
    );
    const builtIn = extractToolCalls('<|python_tag|>brave_search.call(query="weather")<|eom_id|>', {
      tools: ['brave_search'],
    });
    assert.deepEqual(
      builtIn.calls.map((c) => [c.name, c.arguments]),
      [['brave_search', { query: 'weather' }]],
    );
    assert.equal(builtIn.content, '');
  });
});
