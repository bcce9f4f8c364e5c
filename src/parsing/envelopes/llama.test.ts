import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
