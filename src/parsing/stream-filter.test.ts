import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LINEAR_BOUND } from '../../test/support/stream-filter-timing.ts';
import { createStreamFilter } from './stream-filter.ts';
import type { StreamFilterOptions } from './stream-filter.ts';

/** Pushes `text` in pieces of `size`; returns what each push showed and what end() showed. */
function stream(text: string, size: number, options: StreamFilterOptions = {}): { pushed: string[]; rest: string } {
  const filter = createStreamFilter(options);
  const pushed: string[] = [];
  for (let i = 0; i < text.length; i += size) pushed.push(filter.push(text.slice(i, i + size)));
  return { pushed, rest: filter.end() };
}

const TOOLS = { tools: ['get_weather'] };

describe('createStreamFilter', () => {
  it('passes plain text through at once, but for the first word of a line until the character after it', () => {
    // A word starting a line may be a call whose opener was eaten (`get_weather[ARGS]{…}`).
    const { pushed, rest } = stream('Hello there, how are you?', 4);
    assert.deepEqual(pushed, ['', 'Hello th', 'ere,', ' how', ' are', ' you', '?']);
    assert.equal(rest, '');
  });

  it('holds a partial marker until it resolves, then releases it if it was not one', () => {
    const filter = createStreamFilter();
    assert.equal(filter.push('a <to'), 'a ');
    assert.equal(filter.push('ol'), '');
    assert.equal(filter.push('box> b'), '<toolbox> b');
  });

  it('holds everything after a complete marker and drops the call at the end', () => {
    const filter = createStreamFilter(TOOLS);
    assert.equal(filter.push('Let me check.\n<tool_'), 'Let me check.\n');
    assert.equal(filter.push('call>{"name": "get_weather", '), '');
    assert.equal(filter.push('"arguments": {"city": "Paris"}}</tool_call>'), '');
    assert.equal(filter.end(), '');
  });

  it('releases a balanced block once it closes and holds no call', () => {
    const filter = createStreamFilter(TOOLS);
    assert.equal(filter.push('Sets like {a, '), 'Sets like ');
    assert.equal(filter.push('b} are fine'), '{a, b} are fine');
  });

  it('keeps holding a block that is a call', () => {
    const filter = createStreamFilter(TOOLS);
    assert.equal(filter.push('{"name": "get_weather", "arguments": {"city": "Oslo"}}'), '');
    assert.equal(filter.push(' done'), '');
    assert.equal(filter.end(), ' done');
  });

  it('holds a code fence until its closing line, then shows plain code', () => {
    const filter = createStreamFilter(TOOLS);
    assert.equal(filter.push('Code:\n```js\nconst a = 1;\n'), 'Code:\n');
    assert.equal(filter.push('```\nThat is all.'), '```js\nconst a = 1;\n```\nThat is all.');
  });

  it('returns held text that turned out to be an example', () => {
    const text = 'For example:\n<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>';
    const { pushed, rest } = stream(text, 7, TOOLS);
    assert.equal(pushed.join('') + rest, text);
  });

  it('treats every call as unknown without tools, and still removes it', () => {
    const { pushed, rest } = stream('A\n[TOOL_CALLS]x[ARGS]{"a": 1}', 3);
    assert.equal(pushed.join('') + rest, 'A\n');
  });
});

describe('createStreamFilter: calls whose opener was lost', () => {
  const cases: [string, string, string][] = [
    ['Mistral name[ARGS] with [TOOL_CALLS] eaten', 'get_weather[ARGS]{"city": "Paris"}', ''],
    // The header's `assistant` belongs to the call whose `<|start|>` was eaten: it leaves with it.
    [
      'Harmony recipient with <|start|> stripped',
      'assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>',
      '',
    ],
    ['a transcript line to a declared tool', 'assistant to=get_weather: {"city": "Paris"}', ''],
    ['a transcript line after prose', 'Let me look.\nassistant to=get_weather: {"city": "Paris"}', 'Let me look.'],
    [
      'GLM name alone on its line before <arg_key>',
      'Checking.\nget_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>',
      'Checking.',
    ],
    [
      'a namespaced tag the grammar reads',
      'Here:\n<foo:tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</foo:tool_call>',
      'Here:',
    ],
    ['a bare call that is the whole reply', "get_weather(city='Paris')", ''],
    ['an indented Mistral name[ARGS] with [TOOL_CALLS] eaten', '  get_weather[ARGS]{"city": "Paris"}', ''],
    ['an indented name[ARGS] on a later line', 'Checking.\n\t get_weather[ARGS]{"city": "Paris"}', 'Checking.'],
    [
      'a call inside a block whose broken quoting closes it early',
      '{"l_calls": [{"name"me": "get_weather", "arguments": {"city": "Sofi: ' +
        '"Sofia"}}, {"name": "get_weather", "arguments": {"city": "Varna"}}]}',
      '{"l_calls": }',
    ],
    [
      'a Kimi call with its section token eaten',
      'Sure. <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>',
      'Sure.',
    ],
  ];
  for (const [what, text, content] of cases) {
    it(`${what}: nothing of the call is shown, whatever the split`, () => {
      for (const size of [1, 2, 3, 5, 8, 13, text.length]) {
        const { pushed, rest } = stream(text, size, TOOLS);
        const shown = pushed.join('');
        assert.ok(!/get_weather|city/.test(shown), `size ${size}: showed ${JSON.stringify(shown)}`);
        assert.equal((shown + rest).trim(), content, `size ${size}`);
      }
    });
  }

  it('a ```tool_code block without a call is a failed attempt: never shown, and fed back', () => {
    const text = '```tool_code\nI would call the weather tool here\n```\nDone.';
    for (const size of [1, 4, text.length]) {
      const { pushed, rest } = stream(text, size, TOOLS);
      assert.ok(!pushed.join('').includes('weather tool'), `size ${size}`);
      assert.equal((pushed.join('') + rest).trim(), 'Done.', `size ${size}`);
    }
  });

  it('a JSON block that names a tool but holds no call is shown once it closes', () => {
    const filter = createStreamFilter(TOOLS);
    const block = '{"see": "get_weather returns °C", "units": ["C", "F"]}';
    assert.equal(filter.push(`${block} and more`), `${block} and more`);
  });

  it('no word of a transcript line that becomes a call is shown, whatever the split', () => {
    const text = 'assistant to=get_weather: {"city": "Paris"}';
    for (const size of [1, 2, 3, 4, 7, 11, text.length]) {
      const { pushed, rest } = stream(text, size, TOOLS);
      assert.equal(pushed.join(''), '', `size ${size}`);
      assert.equal(rest, '', `size ${size}`);
    }
  });

  it(
    'a call whose special tokens were replaced by look-alikes ' + 'is held whatever the split (detokenized skeleton)',
    () => {
      const text = 'function<|tool sep|>get_weather\n```json\n{"city":"Paris"}\n```';
      for (let cut = 0; cut <= text.length; cut += 1) {
        const filter = createStreamFilter(TOOLS);
        const shown = filter.push(text.slice(0, cut)) + filter.push(text.slice(cut)) + filter.end();
        assert.equal(shown, '', `cut at ${cut}`);
      }
    },
  );

  it('a recipient line to a tool not on offer is shown up to its recipient', () => {
    const text = 'assistant to=browser.search: {"q": "Paris"}';
    for (const size of [1, 3, text.length]) {
      const { pushed, rest } = stream(text, size, TOOLS);
      assert.equal(pushed.join(''), 'assistant ', `size ${size}`);
      assert.equal(pushed.join('') + rest, text, `size ${size}`);
    }
  });

  it('a bare call after other text is text, and streams', () => {
    const { pushed, rest } = stream("You could run get_weather(city='Paris') yourself.", 4, TOOLS);
    assert.equal(pushed.join('') + rest, "You could run get_weather(city='Paris') yourself.");
    assert.ok(pushed.join('').length > 30, 'most of it streamed before the end');
  });
});

describe('createStreamFilter: linear in the length of the reply', () => {
  /** Inputs that keep the filter deciding (blocks closing, lines starting): none of them is held to the end. */
  const UNITS = [
    '```\n```\n',
    'a {b} [c] d ',
    'ok\n',
    '  \t  word\n',
    'Action: x\n',
    'assistant to be\n',
    '```a``` ',
    'a < b ',
    '<b>x</b> ',
    'x {"a": 1} ',
  ];
  const KB = 1024;

  // Measured in a process of its own (test/support/stream-filter-timing.ts): the garbage of the
  // other tests sharing this process would land in the longer runs. Linear: 8; quadratic (the
  // text so far read again on every delta): 64. The bound sits between them, wide enough for a
  // loaded machine, and compares runs, not a clock; a ratio above it is measured again (at
  // most three times) before it counts — a quadratic filter stays above it every time.
  let measured: Record<string, number[]> | undefined;
  function ratiosOf(unit: string): number[] {
    if (measured === undefined) {
      const script = fileURLToPath(new URL('../../test/support/stream-filter-timing.ts', import.meta.url));
      const child = spawnSync(process.execPath, [script, JSON.stringify(UNITS)], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      measured = JSON.parse(child.stdout) as Record<string, number[]>;
    }
    return measured[unit] ?? [];
  }

  for (const unit of UNITS) {
    it(`${JSON.stringify(unit)}: eight times the text costs about eight times the time, not sixty-four`, () => {
      const ratios = ratiosOf(unit);
      assert.ok(
        ratios.length > 0 && ratios.some((r) => r < LINEAR_BOUND),
        `ratios ${ratios.map((r) => r.toFixed(1)).join(', ')}`,
      );
    });
  }

  it('text that cannot be part of a call is shown at once, only the undecided tail held', () => {
    for (const unit of UNITS) {
      const text = unit.repeat(2000);
      const filter = createStreamFilter(TOOLS);
      let shown = 0;
      for (let i = 0; i < text.length; i += KB) {
        shown += filter.push(text.slice(i, i + KB)).length;
        assert.ok(
          Math.min(i + KB, text.length) - shown < 2 * unit.length + 100,
          `${JSON.stringify(unit)}: ${Math.min(i + KB, text.length) - shown} characters held at ${i}`,
        );
      }
    }
  });
});
