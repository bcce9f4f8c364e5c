import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLenient } from './lenient-json.ts';
import { readJson, repairJson } from './repair-json.ts';

function repaired(text: string): { value: unknown; repairs: string[] } {
  const result = repairJson(text);
  assert.ok(result.ok, `expected a repair of ${text}: ${result.ok ? '' : result.error.message}`);
  return { value: result.value, repairs: result.repairs };
}

describe('repairJson', () => {
  it('returns valid JSON unchanged, with no repairs', () => {
    assert.deepEqual(repairJson('{"a": [1, "x", null, true]}'), {
      ok: true,
      value: { a: [1, 'x', null, true] },
      repairs: [],
    });
  });

  it('removes // and /* */ comments but never inside strings', () => {
    const { value, repairs } = repaired('{"url": "https://x.io//a", /* note */ "n": 1 // end\n}');
    assert.deepEqual(value, { url: 'https://x.io//a', n: 1 });
    assert.deepEqual(repairs, ['removed_comments']);
  });

  it('removes trailing commas in objects and arrays', () => {
    const { value, repairs } = repaired('{"a": [1, 2,], "b": 3,}');
    assert.deepEqual(value, { a: [1, 2], b: 3 });
    assert.deepEqual(repairs, ['removed_trailing_commas']);
  });

  it('reads single-quoted strings and keys, with escaped and double quotes inside', () => {
    const { value, repairs } = repaired(`{'a': 'it\\'s', 'b': 'say "hi"'}`);
    assert.deepEqual(value, { a: "it's", b: 'say "hi"' });
    assert.deepEqual(repairs, ['single_quoted_strings']);
  });

  it('quotes bare keys', () => {
    assert.deepEqual(repaired('{city: "Paris", max_results: 3}'), {
      value: { city: 'Paris', max_results: 3 },
      repairs: ['quoted_keys'],
    });
  });

  it('maps True/False/None', () => {
    assert.deepEqual(repaired('{"a": True, "b": False, "c": None}'), {
      value: { a: true, b: false, c: null },
      repairs: ['python_literals'],
    });
  });

  it('closes brackets left open at the very end after a complete value, never a cut value', () => {
    const { value, repairs } = repaired('{"a": {"b": "hello world"');
    assert.deepEqual(value, { a: { b: 'hello world' } });
    assert.deepEqual(repairs, ['closed_brackets_at_end']);
    for (const cut of ['{"a": {"b": "hello wor', '{"a": 12', '{"a": 1,', '{"a":', '{"a', '[1, 2', '{"a": [']) {
      const result = repairJson(cut);
      assert.equal(result.ok, false, cut);
    }
  });

  it('keeps raw line breaks and unknown escapes as the model meant them', () => {
    assert.deepEqual(repaired('{"code": "a\n\tb", "re": "\\d+"}').value, { code: 'a\n\tb', re: '\\d+' });
  });

  it('uses jsonrepair as the last stage (missing commas, bare words) and says so', () => {
    assert.deepEqual(repaired('{"a": 1 "b": 2}'), { value: { a: 1, b: 2 }, repairs: ['jsonrepair'] });
    assert.deepEqual(repaired('{"city": Paris}'), { value: { city: 'Paris' }, repairs: ['jsonrepair'] });
  });

  it('never invents a value', () => {
    for (const text of ['{"a": }', '{"a"', '{"a":', '{"a": 1, "b"}', '{"a": 1, "b": }', '[1, hello]']) {
      const result = repairJson(text);
      assert.equal(result.ok, false, `${text} should not be repaired`);
    }
  });

  it('reports where reading failed', () => {
    const result = repairJson('{"a": 1, "b": }');
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.position, 14);
      assert.match(result.error.message, /Unexpected character '}'/);
    }
  });

  it('keeps "__proto__" as data, never as a prototype', () => {
    const result = repairJson("{'__proto__': {'polluted': true}}");
    assert.ok(result.ok);
    if (result.ok) {
      assert.equal(Object.getPrototypeOf(result.value), Object.prototype);
      assert.deepEqual(Object.keys(result.value as object), ['__proto__']);
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    }
  });
});

describe('readJson', () => {
  it('does not close what a token limit cut off', () => {
    const result = readJson('{"a": "cut', { allowCloseAtEnd: false });
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.atEnd, true);
  });

  it('flags a value that had to be closed', () => {
    const result = readJson('{"a": [1, true', { allowCloseAtEnd: true });
    assert.ok(result.ok && result.closedAtEnd);
    // A number the text ends on may be cut: never closed.
    const cut = readJson('{"a": [1', { allowCloseAtEnd: true });
    assert.ok(!cut.ok && cut.atEnd);
  });
});

describe('repairJson limits', () => {
  it('refuses nesting past the reading depth limit in every stage, naming the limit and the position', () => {
    for (const text of [
      '['.repeat(10_000) + ']'.repeat(10_000),
      '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
      "{'a':".repeat(5_000) + '1' + '}'.repeat(5_000),
      '['.repeat(300) + '1 2' + ']'.repeat(300),
    ]) {
      const result = repairJson(text);
      assert.equal(result.ok, false, text.slice(0, 20));
      if (!result.ok) {
        assert.match(result.error.message, /nested deeper than 128 levels/);
        assert.equal(result.error.position, text.startsWith('[') ? 128 : 128 * 5);
      }
    }
  });

  it('refuses numbers that do not fit a 64-bit float, at their position', () => {
    for (const text of [
      '[1e400]',
      '{"a": [-1e400]}',
      '{a: 1E+309}',
      `[${'1'.repeat(400)}]`,
      '["x" "y", 1e400]',
      JSON.stringify({ pad: 'x'.repeat(20_000) }).replace('}', ', "n": 1e400}'),
    ]) {
      const result = repairJson(text);
      assert.equal(result.ok, false, text.slice(0, 30));
      if (!result.ok) {
        assert.match(result.error.message, /out of range/);
        assert.equal(result.error.position, text.search(/-?1e|-?1E|1{400}/), text.slice(0, 30));
      }
    }
  });

  it('still reads tiny numbers (they round to zero, a finite value)', () => {
    assert.deepEqual(repairJson('[1e-400]'), { ok: true, value: [0], repairs: [] });
  });

  it('does not hand jsonrepair more nesting than it can recurse through', () => {
    for (const text of [
      '{"a": ' + 'f('.repeat(10_000),
      '{"a": ' + Array(10_000).fill('"x"').join(' + '),
      "{'a': " + "['x' ".repeat(10_000),
    ]) {
      const result = repairJson(text);
      assert.equal(result.ok, false);
    }
  });
});

describe('parseLenient', () => {
  it('refuses nesting past its depth limit instead of overflowing the stack', () => {
    const result = parseLenient('['.repeat(100_000), { allowCloseAtEnd: true });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.message, /nested deeper/);
  });

  it('flags a failure caused by the end of the text', () => {
    const result = parseLenient('{"a": tr', { allowCloseAtEnd: true });
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.atEnd, true);
  });
});

describe('repairJson: the argument repairs serve JSON found in text too', () => {
  it('keeps quotes left unescaped inside strings', () => {
    assert.deepEqual(repaired('{"name": "say", "arguments": {"text": "He said "hi" to me"}}'), {
      value: { name: 'say', arguments: { text: 'He said "hi" to me' } },
      repairs: ['unescaped_inner_quotes'],
    });
  });

  it('reads triple-quoted strings', () => {
    assert.deepEqual(repaired('{"code": """if x:\n    print("y")\n"""}'), {
      value: { code: 'if x:\n    print("y")\n' },
      repairs: ['triple_quoted_strings'],
    });
  });

  it('inserts a closer missing before the enclosing one', () => {
    assert.deepEqual(repaired('[{"a": 1}, {"b": 2]'), {
      value: [{ a: 1 }, { b: 2 }],
      repairs: ['inserted_missing_closer'],
    });
    assert.deepEqual(repaired('{"a": [1, 2}'), { value: { a: [1, 2] }, repairs: ['inserted_missing_closer'] });
  });

  it('reads literal \\n between tokens as layout', () => {
    assert.deepEqual(repaired('{\\n  "a": "x\\ny"\\n}'), {
      value: { a: 'x\ny' },
      repairs: ['literal_escape_sequences'],
    });
  });

  it('collapses doubled braces', () => {
    assert.deepEqual(repaired('{{"a": 1}}'), { value: { a: 1 }, repairs: ['collapsed_doubled_braces'] });
  });

  it('does not read objects in a row as one value (the extractor finds each)', () => {
    assert.equal(repairJson('{"a": 1} {"a": 2}').ok, false);
  });

  it('does not close a string past a quote it kept: nothing says where it ends', () => {
    const result = readJson('{"a": "He said "hi', { allowCloseAtEnd: true, lastResort: false });
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.position, 16);
  });

  it("reports the plain read's failure when no repair reads the text", () => {
    const result = repairJson('{"a": "x" y z}');
    assert.equal(result.ok, false);
    if (!result.ok)
      assert.deepEqual(result.error, { message: `Expected ',' or '}' after the value of "a"`, position: 10 });
  });

  it('reports a cut in an extended read as a cut', () => {
    const result = readJson('{\\n  "a": "cut', { allowCloseAtEnd: false });
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.atEnd, true);
  });

  it('gives jsonrepair no text longer than 64 KB (it slows down quadratically on some)', () => {
    const pad = 'x'.repeat(70_000);
    assert.deepEqual(repaired(`{"a": 1 "pad": "${pad.slice(0, 100)}"}`).repairs, ['jsonrepair']);
    assert.equal(repairJson(`{"a": 1 "pad": "${pad}"}`).ok, false);
    assert.equal(repairJson(`{"a": "${'" '.repeat(100_000)}`).ok, false);
  });
});
