import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from './extract-tool-calls.ts';
import {
  looksPythonic,
  parseBoundedPythonicCalls,
  parseEnvelopedPythonicCalls,
  parsePythonicCalls,
  pythonicCallsEnd,
} from './pythonic.ts';

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
    for (const text of ['f("Paris")', 'f(city=Paris)', '[f(a=1) g(b=2)]'])
      assert.equal(parsePythonicCalls(text).ok, false, text);
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
    assert.deepEqual(
      calls(
        String.raw`[f(a='Martha\'s Vineyard', b='\"cool units\"', c='x\\y\nz\tw', ` +
          String.raw`d='caf\u00e9 \U0001F600 \x41\101', e="it\'s")]`,
      ),
      [['f', { a: "Martha's Vineyard", b: '"cool units"', c: 'x\\y\nz\tw', d: 'café 😀 AA', e: "it's" }]],
    );
    // Unknown or incomplete escapes stay as written, as in Python.
    assert.deepEqual(
      calls(String.raw`f(a='\d+', b='\u12', c='line\
joined')`),
      [['f', { a: '\\d+', b: '\\u12', c: 'linejoined' }]],
    );
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
    if (result.ok)
      assert.deepEqual(
        result.calls.map((c) => text.slice(c.span.start, c.span.end)),
        ['f(a=1)', 'g()'],
      );
  });
});

describe('Python sets', () => {
  it('reads a set as a list in the written order, a repeated item once', () => {
    assert.deepEqual(
      calls(`tag(labels={'zeta', 'alpha', 'zeta'}, ids={3, 1, 2,}, one={None}, pairs={(1, 'a'), (2, 'b')})`),
      [
        [
          'tag',
          {
            labels: ['zeta', 'alpha'],
            ids: [3, 1, 2],
            one: [null],
            pairs: [
              [1, 'a'],
              [2, 'b'],
            ],
          },
        ],
      ],
    );
  });

  it('keeps {} a dict and dicts dicts, nested sets included', () => {
    assert.deepEqual(calls(`f(a={}, b={'k': {'x', 'y'}}, c=[{1}, {2: 3}])`), [
      ['f', { a: {}, b: { k: ['x', 'y'] }, c: [[1], { '2': 3 }] }],
    ]);
  });

  it('refuses a set mixed with a dict and a set of lists or dicts, at the item', () => {
    const mixed = `f(a={'x', 'y': 1})`;
    const after = `f(a={'y': 1, 'x'})`;
    const unhashable = `f(a={'x', ['y']})`;
    const nested = `f(a={{'k': 1}, 2})`;
    for (const [text, at] of [
      [mixed, mixed.indexOf(':')],
      [unhashable, unhashable.indexOf('[')],
      [nested, nested.indexOf("{'k'")],
    ] as const) {
      const result = parsePythonicCalls(text);
      assert.ok(!result.ok, text);
      assert.equal(result.position, at, text);
    }
    assert.equal(parsePythonicCalls(after).ok, false);
  });

  it('flags a set cut at the end as cut', () => {
    const result = parsePythonicCalls(`f(a={'x', 'y'`);
    assert.ok(!result.ok);
    assert.equal(result.atEnd, true);
  });
});

describe('parseBoundedPythonicCalls', () => {
  const bounded = (text: string): unknown => {
    const result = parseBoundedPythonicCalls(text, 0, text.length);
    assert.ok(result.ok, result.ok ? '' : result.message);
    return result.calls.map((call) => [call.name, call.arguments]);
  };

  it('reads valid Python as Python: escapes decoded', () => {
    assert.deepEqual(bounded(String.raw`[say(text='it's', path="a\b")]`), [['say', { text: "it's", path: 'a\b' }]]);
  });

  it('reads the rest raw: inner quotes that cannot end the value, line breaks in either quote', () => {
    assert.deepEqual(bounded(`[run(cmd='grep -n 'foo bar' x.txt', note="line one\nline "two"")]`), [
      ['run', { cmd: "grep -n 'foo bar' x.txt", note: 'line one\nline "two"' }],
    ]);
    // A quote followed by `, word` (no `=`) cannot end the value either.
    assert.deepEqual(bounded(`[run(cmd='a 'b', c', n=1)]`), [['run', { cmd: "a 'b', c", n: 1 }]]);
  });

  it('fails where the raw reading cannot go on, with a position, and invents nothing', () => {
    // The quote after 'b' can end the value (`, n=` follows); what is left is no keyword argument.
    const ambiguous = `[run(cmd='a 'b', n=1, ')]`;
    const result = parseBoundedPythonicCalls(ambiguous, 0, ambiguous.length);
    assert.ok(!result.ok);
    assert.equal(result.position, ambiguous.lastIndexOf("'"));
    const open = `[run(cmd='never closed)]`;
    const cut = parseBoundedPythonicCalls(open, 0, open.length);
    assert.ok(!cut.ok);
    assert.equal(cut.atEnd, true);
  });

  it('is what an envelope reads; text outside one keeps the strict rules', () => {
    const text = `[run(cmd='echo 'hi'')]`;
    assert.equal(parsePythonicCalls(text).ok, false);
    assert.equal(parseEnvelopedPythonicCalls(text, 0, text.length).ok, true);
    assert.equal(parsePythonicCalls(`run(cmd='a\nb')`).ok, false);
  });

  it('stays linear on runs of quotes', () => {
    const text = `[run(cmd='${"' '".repeat(200_000)}')]`;
    const started = performance.now();
    parseBoundedPythonicCalls(text, 0, text.length);
    // Linear is a few ms; quadratic on 600,000 quotes would be minutes. The bound only catches that.
    assert.ok(performance.now() - started < 5000, 'took too long');
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

describe('pythonic calls in envelopes (end to end)', () => {
  const TOOLS = ['note', 'tag'];
  const read = (text: string): unknown =>
    extractToolCalls(text, { tools: TOOLS }).calls.map((call) => [call.name, call.arguments]);

  it('reads raw quotes, raw line breaks and sets between markers no family lists', () => {
    assert.deepEqual(read(`<|act_open|>[note(text='say 'hi' twice\nthen stop')]<|act_close|>`), [
      ['note', { text: "say 'hi' twice\nthen stop" }],
    ]);
    assert.deepEqual(read(`<|act_open|>[tag(labels={'b', 'a'})]<|act_close|>`), [['tag', { labels: ['b', 'a'] }]]);
    assert.deepEqual(read(String.raw`<|act_open|>[note(text='it\'s')]<|act_close|>`), [['note', { text: "it's" }]]);
  });

  it('keeps the strict rules outside an envelope, and fails an unreadable body with a position', () => {
    const prose = `You can write note(text='say 'hi'') yourself.`;
    assert.deepEqual(read(prose), []);
    const broken = `<|act_open|>[note(text='a', n=1, ')]<|act_close|>`;
    const result = extractToolCalls(broken, { tools: TOOLS });
    assert.deepEqual(result.calls, []);
    const failure = result.diagnostics.find((d) => d.code === 'malformed_call');
    assert.ok(failure?.position !== undefined, JSON.stringify(result.diagnostics));
  });
});
