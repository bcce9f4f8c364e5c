import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_JSON_NODES } from '../core/json-shape.ts';
import { DEFAULT_MAX_ARGUMENTS_CHARS, readArgumentObjects, repairArguments } from './repair-arguments.ts';
import type { RepairKind } from './types.ts';

function repaired(raw: string, args: Record<string, unknown>, repairs: RepairKind[]): void {
  assert.deepEqual(repairArguments(raw), { ok: true, arguments: args, repairs }, raw);
}

function failure(
  raw: string,
  options: Parameters<typeof repairArguments>[1] = {},
): { message: string; position: number } {
  const result = repairArguments(raw, options);
  assert.equal(result.ok, false, raw);
  return result.ok ? { message: '', position: -1 } : { message: result.message, position: result.position };
}

describe('repairArguments', () => {
  it('reads valid arguments unchanged', () => {
    assert.deepEqual(repairArguments('{"city": "Paris"}'), { ok: true, arguments: { city: 'Paris' }, repairs: [] });
  });

  it('treats an empty string as no arguments', () => {
    assert.deepEqual(repairArguments(''), { ok: true, arguments: {}, repairs: [] });
    assert.deepEqual(repairArguments('  \n'), { ok: true, arguments: {}, repairs: [] });
  });

  it('decodes double-encoded arguments', () => {
    assert.deepEqual(repairArguments('"{\\"city\\": \\"Paris\\"}"'), {
      ok: true,
      arguments: { city: 'Paris' },
      repairs: ['decoded_double_encoding'],
    });
  });

  it('unwraps a code fence and repairs the JSON inside', () => {
    assert.deepEqual(repairArguments('```json\n{"city": "Paris",}\n```'), {
      ok: true,
      arguments: { city: 'Paris' },
      repairs: ['unwrapped_fence', 'removed_trailing_commas'],
    });
  });

  it('accepts null as no arguments, and says so', () => {
    assert.deepEqual(repairArguments('null'), { ok: true, arguments: {}, repairs: ['null_arguments_as_empty'] });
  });

  it('rejects anything that is not an object', () => {
    for (const raw of ['[1, 2]', '42', '"just text"', 'true']) {
      const result = repairArguments(raw);
      assert.equal(result.ok, false, raw);
      if (!result.ok) assert.match(result.message, /must be a JSON object/);
    }
  });

  it('rejects unreadable JSON with a position', () => {
    const result = repairArguments('{"city": }');
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.position, 9);
      assert.match(result.message, /Invalid JSON in tool arguments/);
    }
  });

  it('does not close arguments cut by the token limit', () => {
    assert.equal(repairArguments('{"city": "Par', { truncated: true }).ok, false);
    assert.equal(repairArguments('{"city": "Par').ok, false);
    assert.deepEqual(repairArguments('{"city": "Paris"'), {
      ok: true,
      arguments: { city: 'Paris' },
      repairs: ['closed_brackets_at_end'],
    });
  });
});

describe('repairArguments: what broken serving stacks and small models send', () => {
  it('reads single-quoted (Python-style) dicts and lists, with True/False/None', () => {
    repaired("{'city': 'Brest'}", { city: 'Brest' }, ['single_quoted_strings']);
    repaired(
      "{'tags': ['a', 'b'], 'on': True, 'off': False, 'note': None}",
      { tags: ['a', 'b'], on: true, off: false, note: null },
      ['single_quoted_strings', 'python_literals'],
    );
  });

  it('decodes double-encoded arguments, escaped or not', () => {
    repaired('"{\\"city\\": \\"Nantes\\"}"', { city: 'Nantes' }, ['decoded_double_encoding']);
    repaired('"{"city": "Nantes"}"', { city: 'Nantes' }, ['unescaped_inner_quotes', 'decoded_double_encoding']);
  });

  it(
    'keeps quotes left unescaped inside a string: a quote ends a string ' +
      'only where a closer, a comma and the next key, or the end follows',
    () => {
      repaired('{"text": "He said "hi" to me", "n": 1}', { text: 'He said "hi" to me', n: 1 }, [
        'unescaped_inner_quotes',
      ]);
      repaired(
        '{"path": "a.py", "content": "env.get("KEY", "default")"}',
        { path: 'a.py', content: 'env.get("KEY", "default")' },
        ['unescaped_inner_quotes'],
      );
      repaired('{"a": "x", "b": "He said "stop", then left"}', { a: 'x', b: 'He said "stop", then left' }, [
        'unescaped_inner_quotes',
      ]);
      repaired('{"items": ["a "b" c", "d"]}', { items: ['a "b" c', 'd'] }, ['unescaped_inner_quotes']);
      repaired("{'text': 'it's fine', 'n': 1}", { text: "it's fine", n: 1 }, [
        'single_quoted_strings',
        'unescaped_inner_quotes',
      ]);
    },
  );

  it('does not take a missing comma for an inner quote (jsonrepair, the last stage, adds the comma)', () => {
    repaired('{"a": "x" "b": "y"}', { a: 'x', b: 'y' }, ['jsonrepair']);
  });

  it('reads Python triple-quoted strings, raw line breaks and quotes inside', () => {
    repaired('{"code": """def f():\n    return "x"\n"""}', { code: 'def f():\n    return "x"\n' }, [
      'triple_quoted_strings',
    ]);
    repaired("{'code': '''x = 'a'\nprint(x)'''}", { code: "x = 'a'\nprint(x)" }, [
      'single_quoted_strings',
      'triple_quoted_strings',
    ]);
    repaired('{"code": """say "hi""""}', { code: 'say "hi"' }, ['triple_quoted_strings']);
  });

  it('inserts the closer missing right before the enclosing container closes', () => {
    repaired('{"items": [{"a": 1}, {"b": 2]}', { items: [{ a: 1 }, { b: 2 }] }, ['inserted_missing_closer']);
    repaired('{"todos": [{"id": "1", "status": "pending"]}', { todos: [{ id: '1', status: 'pending' }] }, [
      'inserted_missing_closer',
    ]);
    repaired('{"a": [1, 2}', { a: [1, 2] }, ['inserted_missing_closer']);
  });

  it(
    'reads literal \\n, \\t and \\r\\n written between tokens ' + 'as layout, and keeps them as escapes inside strings',
    () => {
      repaired('{\\n  "city": "Paris"\\n}', { city: 'Paris' }, ['literal_escape_sequences']);
      repaired('{\\r\\n\\t"a": [1,\\n 2]\\r\\n}', { a: [1, 2] }, ['literal_escape_sequences']);
      repaired('{\\n  "text": "one\\ntwo"\\n}', { text: 'one\ntwo' }, ['literal_escape_sequences']);
      repaired('{"text": "one\\ntwo"}', { text: 'one\ntwo' }, []);
    },
  );

  it('collapses doubled and tripled (template-escaped) braces, and leaves real nesting alone', () => {
    repaired('{{"city": "Paris"}}', { city: 'Paris' }, ['collapsed_doubled_braces']);
    repaired('{{{"a": 1}}}', { a: 1 }, ['collapsed_doubled_braces']);
    repaired('{{"a": {{"b": 1}}}}', { a: { b: 1 } }, ['collapsed_doubled_braces']);
    repaired('{"a": {"b": 1}}', { a: { b: 1 } }, []);
    assert.equal(repairArguments('{{{{"a": 1}}}}').ok, false, 'four braces are not a template escape');
    assert.equal(repairArguments('{{"a": 1}, {"b": 2}}').ok, false);
  });

  it('reads the same object sent twice in a row as one', () => {
    for (const raw of [
      '{"city": "Paris"}{"city": "Paris"}',
      '{"city": "Paris"}\n{"city": "Paris"}',
      '{"city": "Paris"}, {"city": "Paris"}',
      '{"a": {"x": 1, "y": 2}} {"a": {"y": 2, "x": 1}}',
    ]) {
      const result = repairArguments(raw);
      assert.ok(result.ok, raw);
      assert.deepEqual(result.repairs, ['split_concatenated_objects'], raw);
    }
  });

  it('refuses different objects in a row, pointing at the first one that differs', () => {
    assert.deepEqual(failure('{"city": "Paris"}{"city": "London"}'), {
      message: 'Tool arguments hold 2 JSON objects in a row; send one JSON object per call.',
      position: 17,
    });
    assert.deepEqual(failure('{"a": 1} {"a": 1}\n{"b": 2}'), {
      message: 'Tool arguments hold 3 JSON objects in a row; send one JSON object per call.',
      position: 18,
    });
  });

  it('refuses arguments cut by the token limit, saying so and where', () => {
    const raw = '{"city": "Par';
    const cut = failure(raw, { truncated: true });
    assert.equal(cut.position, raw.length);
    assert.match(cut.message, /^Tool arguments were cut off at character 13: the reply hit its length limit/);
    assert.match(failure('{\\n  "items": [1, 2', { truncated: true }).message, /cut off/);
    // Not truncated either: a cut string or number is never closed into a value.
    assert.equal(repairArguments(raw).ok, false);
    assert.equal(repairArguments('{"items": [1, 2').ok, false);
    repaired('{"items": [1, 2]', { items: [1, 2] }, ['closed_brackets_at_end']);
  });

  it('says what is wrong and where, counted in the string as sent', () => {
    assert.deepEqual(failure('  {"city": }'), {
      message: "Invalid JSON in tool arguments at character 11: Unexpected character '}'.",
      position: 11,
    });
    assert.equal(failure('```json\n{"city": }\n```').position, 17);
    assert.equal(failure('{"a": "x" y}').position, 10);
  });

  it('never invents a value', () => {
    for (const raw of ['{"a": }', '{"a": 1, "b"}', '{"a": "He said "hi" "b": }', '{{"a": }}'])
      assert.equal(repairArguments(raw).ok, false, raw);
  });
});

describe('readArgumentObjects', () => {
  it('returns every object in a row, separated by nothing, whitespace, commas or line breaks', () => {
    assert.deepEqual(readArgumentObjects('{"city": "Paris"}{"city": "London"}'), {
      ok: true,
      objects: [{ city: 'Paris' }, { city: 'London' }],
      repairs: ['split_concatenated_objects'],
    });
    assert.deepEqual(readArgumentObjects('{"a": 1},\n{"a": 2}\n {"a": 3}'), {
      ok: true,
      objects: [{ a: 1 }, { a: 2 }, { a: 3 }],
      repairs: ['split_concatenated_objects'],
    });
    assert.deepEqual(readArgumentObjects("{'a': 1}\\n{'a': 2}"), {
      ok: true,
      objects: [{ a: 1 }, { a: 2 }],
      repairs: ['single_quoted_strings', 'literal_escape_sequences', 'split_concatenated_objects'],
    });
  });

  it('returns one object, with its repairs, when there is one', () => {
    assert.deepEqual(readArgumentObjects('{"city": "Paris"}'), { ok: true, objects: [{ city: 'Paris' }], repairs: [] });
    assert.deepEqual(readArgumentObjects(''), { ok: true, objects: [{}], repairs: [] });
    assert.deepEqual(readArgumentObjects('{{"a": 1}}'), {
      ok: true,
      objects: [{ a: 1 }],
      repairs: ['collapsed_doubled_braces'],
    });
  });

  it('refuses anything but objects in the row, and a row past the limits', () => {
    assert.equal(readArgumentObjects('{"a": 1} [1]').ok, false);
    assert.equal(readArgumentObjects('[1] {"a": 1}').ok, false);
    const deep = readArgumentObjects(`{"a": 1} {"x": ${'['.repeat(70)}${']'.repeat(70)}}`);
    assert.equal(deep.ok, false);
    if (!deep.ok) assert.match(deep.message, /deeper than 64 levels/);
  });
});

describe('repairArguments limits', () => {
  it('refuses arguments nested deeper than the limit, with the position, instead of overflowing the stack', () => {
    for (const depth of [65, 2_500, 10_000, 100_000]) {
      const raw = `{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const result = repairArguments(raw);
      assert.equal(result.ok, false, `depth ${depth}`);
      if (!result.ok) {
        assert.match(result.message, /nested deeper than 64 levels/);
        assert.equal(result.position, 5 + 63);
      }
    }
  });

  it('accepts arguments exactly at the depth limit', () => {
    const raw = `{"x":${'['.repeat(63)}${']'.repeat(63)}}`;
    assert.equal(repairArguments(raw).ok, true);
  });

  it('refuses deep arguments whatever the repair stage that reads them', () => {
    const cases = [
      `{'x':${"{'a':".repeat(5_000)}1${'}'.repeat(5_000)}}`,
      `{"x": ${'['.repeat(5_000)}`,
      `{"x": ${'['.repeat(200)}1 2${']'.repeat(200)}}`,
      `{"x": ${'{"a": '.repeat(100)}1 "b": 2${'}'.repeat(100)}}`,
      JSON.stringify(`{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`),
      '```json\n' + `{"x":${'['.repeat(3_000)}${']'.repeat(3_000)}}` + '\n```',
    ];
    for (const raw of cases) {
      const result = repairArguments(raw);
      assert.equal(result.ok, false, raw.slice(0, 30));
      if (!result.ok) assert.match(result.message, /deeper than 64 levels/, raw.slice(0, 30));
    }
  });

  it('refuses numbers out of range instead of reading them as Infinity (sent on as null)', () => {
    for (const [raw, position] of [
      ['{"qty": 1e400}', 8],
      ['{"qty": -1e400}', 8],
      [`{"qty": ${'9'.repeat(400)}}`, 8],
      ['{qty: 1e400,}', 6],
      ['{"a": {"b": [1, 2, {"qty": 1e999}]}}', 27],
    ] as const) {
      const result = repairArguments(raw);
      assert.equal(result.ok, false, raw.slice(0, 40));
      if (!result.ok) {
        assert.match(result.message, /out of range/, raw.slice(0, 40));
        assert.equal(result.position, position, raw);
      }
    }
  });

  it('refuses double-encoded arguments holding a number out of range', () => {
    const result = repairArguments(JSON.stringify('{"qty": 1e400}'));
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.message, /out of range/);
  });

  it('refuses arguments longer than DEFAULT_MAX_ARGUMENTS_CHARS', () => {
    const raw = `{"text": "${'x'.repeat(DEFAULT_MAX_ARGUMENTS_CHARS)}"}`;
    const result = repairArguments(raw);
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.match(result.message, /longer than 1000000 characters/);
      assert.equal(result.position, DEFAULT_MAX_ARGUMENTS_CHARS);
    }
    assert.equal(repairArguments(`{"text": "${'x'.repeat(DEFAULT_MAX_ARGUMENTS_CHARS - 20)}"}`).ok, true);
    assert.equal(repairArguments(`{"text": "${'x'.repeat(100)}"}`, { maxChars: 50 }).ok, false);
  });

  it('refuses arguments with more values than the JSON shape limit', () => {
    assert.equal(DEFAULT_MAX_JSON_NODES, 100_000);
    const result = repairArguments(`{"xs": [${'0,'.repeat(1_000)}0]}`, { maxNodes: 1_000 });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.message, /more than 1000 elements/);
    assert.equal(repairArguments(`{"xs": [${'0,'.repeat(997)}0]}`, { maxNodes: 1_000 }).ok, true);
  });

  it('never throws on huge unterminated input', () => {
    for (const raw of [
      '{'.repeat(900_000),
      '['.repeat(900_000),
      `{"a": "${'x'.repeat(900_000)}`,
      '"'.repeat(900_000),
      "{'a':".repeat(150_000),
      'f('.repeat(400_000),
    ]) {
      const result = repairArguments(raw);
      assert.equal(typeof result.ok, 'boolean');
    }
  });
});

describe('repairArguments: why a failure failed', () => {
  it('names the reason, so callers never read it from the message', () => {
    const reason = (raw: string, options = {}) => {
      const result = repairArguments(raw, options);
      return result.ok ? 'ok' : result.reason;
    };
    assert.equal(reason('{"city": }'), 'invalid_json');
    assert.equal(reason('{"city": "Par', { truncated: true }), 'cut');
    assert.equal(reason('[1, 2]'), 'not_object');
    assert.equal(reason('{"a": 1}{"a": 2}'), 'several_objects');
    assert.equal(reason('{"n": 1e400}'), 'refused');
    assert.equal(reason('x'.repeat(20), { maxChars: 10 }), 'refused');
  });
});
