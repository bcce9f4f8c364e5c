import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { looksPythonic, parsePythonicCalls } from './pythonic.ts';

const calls = (text: string): unknown => {
  const result = parsePythonicCalls(text);
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.calls.map((call) => [call.name, call.arguments]);
};

describe('parsePythonicCalls', () => {
  it('reads a bracketed list of keyword calls', () => {
    assert.deepEqual(calls(`[get_weather(city='Paris'), get_time(tz="UTC", offset=-2.5)]`), [
      ['get_weather', { city: 'Paris' }],
      ['get_time', { tz: 'UTC', offset: -2.5 }],
    ]);
  });

  it('reads Python literals: booleans, None, lists, tuples, dicts, triple quotes', () => {
    assert.deepEqual(calls(`f(a=True, b=None, c=[1, (2, 3)], d={'k': "v", 1: False}, e='''multi\nline''')`), [
      ['f', { a: true, b: null, c: [1, [2, 3]], d: { k: 'v', '1': false }, e: 'multi\nline' }],
    ]);
  });

  it('strips .call from Llama built-in tool calls', () => {
    assert.deepEqual(calls('brave_search.call(query="llamas")'), [['brave_search', { query: 'llamas' }]]);
  });

  it('accepts calls on separate lines or separated by semicolons', () => {
    assert.deepEqual(calls('a(x=1)\nb(y=2); c()'), [
      ['a', { x: 1 }],
      ['b', { y: 2 }],
      ['c', {}],
    ]);
  });

  it('refuses positional arguments and bare words', () => {
    for (const text of ['f("Paris")', 'f(city=Paris)', '[f(a=1) g(b=2)]']) assert.equal(parsePythonicCalls(text).ok, false, text);
  });

  it('flags a call cut at the end of the text', () => {
    const result = parsePythonicCalls('[f(a="long text that was cu');
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.atEnd, true);
  });

  it('refuses values nested past its limit, naming it, at any depth of input', () => {
    for (const depth of [64, 10_000, 200_000]) {
      const text = `[f(a=${'['.repeat(depth)}${']'.repeat(depth)})]`;
      const result = parsePythonicCalls(text);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.match(result.message, /nested deeper than 64 levels/);
        assert.equal(result.position, 5 + 63);
      }
    }
    // The arguments object is level 1: 63 levels inside it fit the limit.
    assert.equal(parsePythonicCalls(`f(a=${'('.repeat(63)}${')'.repeat(63)})`).ok, true);
  });

  it('refuses numbers out of range', () => {
    for (const text of ['f(qty=1e400)', 'f(qty=-1e400)', `f(qty=[1, {"n": ${'9'.repeat(400)}}])`]) {
      const result = parsePythonicCalls(text);
      assert.equal(result.ok, false, text.slice(0, 30));
      if (!result.ok) assert.match(result.message, /out of range/);
    }
  });

  it('returns spans of each call', () => {
    const text = '[f(a=1), g()]';
    const result = parsePythonicCalls(text);
    assert.ok(result.ok);
    if (result.ok) assert.deepEqual(result.calls.map((c) => text.slice(c.span.start, c.span.end)), ['f(a=1)', 'g()']);
  });
});

describe('looksPythonic', () => {
  it('recognises name( and [name( only', () => {
    assert.equal(looksPythonic('[get_weather(city="x")]', 0), true);
    assert.equal(looksPythonic('  tools.search(q=1)', 0), true);
    assert.equal(looksPythonic('[1, 2]', 0), false);
    assert.equal(looksPythonic('[see here](http://x)', 0), false);
  });
});
