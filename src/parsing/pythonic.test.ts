import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { looksPythonic, parsePythonicCalls, pythonicCallsEnd } from './pythonic.ts';

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

  it('decodes Python string escapes', () => {
    assert.deepEqual(calls(String.raw`[f(a='Martha\'s Vineyard', b='\"cool units\"', c='x\\y\nz\tw', d='caf\u00e9 \U0001F600 \x41\101', e="it\'s")]`), [
      ['f', { a: "Martha's Vineyard", b: '"cool units"', c: 'x\\y\nz\tw', d: 'café 😀 AA', e: "it's" }],
    ]);
    // Unknown or incomplete escapes stay as written, as in Python.
    assert.deepEqual(calls(String.raw`f(a='\d+', b='\u12', c='line\
joined')`), [['f', { a: '\\d+', b: '\\u12', c: 'linejoined' }]]);
  });

  it('reads raw, bytes and unicode string prefixes, but not f-strings', () => {
    assert.deepEqual(calls(String.raw`[bad(x=b'z'), g(p=r'C:\dir\n', q=u"é", s=Rb'\x41', t=BR"\'")]`), [
      ['bad', { x: 'z' }],
      ['g', { p: 'C:\\dir\\n', q: 'é', s: '\\x41', t: "\\'" }],
    ]);
    assert.equal(parsePythonicCalls(`f(a=f'{x}')`).ok, false);
  });

  it('flags a string cut right after a backslash as cut at the end', () => {
    const result = parsePythonicCalls(`[f(a='long text\\`);
    assert.ok(!result.ok);
    assert.equal(result.atEnd, true);
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

describe('pythonicCallsEnd', () => {
  it('ends a list at its bracket and bare calls at the last one that reads', () => {
    const list = `[f(a='x]'), g()] and then prose`;
    assert.equal(pythonicCallsEnd(list, 0), list.indexOf(' and'));
    const bare = `f(a=1)\ng(b="2")\nThat is all.`;
    assert.equal(pythonicCallsEnd(bare, 0), bare.indexOf('\nThat'));
    assert.equal(pythonicCallsEnd('no call here', 0), -1);
    assert.equal(pythonicCallsEnd('[f(a=1) g()]', 0), -1);
  });
});
