import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_JSON_NODES } from '../core/json-shape.ts';
import { DEFAULT_MAX_ARGUMENTS_CHARS, repairArguments } from './repair-arguments.ts';

describe('repairArguments', () => {
  it('reads valid arguments unchanged', () => {
    assert.deepEqual(repairArguments('{"city": "Paris"}'), { ok: true, arguments: { city: 'Paris' }, repairs: [] });
  });

  it('treats an empty string as no arguments', () => {
    assert.deepEqual(repairArguments(''), { ok: true, arguments: {}, repairs: [] });
    assert.deepEqual(repairArguments('  \n'), { ok: true, arguments: {}, repairs: [] });
  });

  it('decodes double-encoded arguments', () => {
    assert.deepEqual(repairArguments('"{\\"city\\": \\"Paris\\"}"'), { ok: true, arguments: { city: 'Paris' }, repairs: ['decoded_double_encoding'] });
  });

  it('unwraps a code fence and repairs the JSON inside', () => {
    assert.deepEqual(repairArguments('```json\n{"city": "Paris",}\n```'), { ok: true, arguments: { city: 'Paris' }, repairs: ['unwrapped_fence', 'removed_trailing_commas'] });
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
    assert.deepEqual(repairArguments('{"city": "Par'), { ok: true, arguments: { city: 'Par' }, repairs: ['closed_string_at_end', 'closed_brackets_at_end'] });
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
    for (const raw of ['{'.repeat(900_000), '['.repeat(900_000), `{"a": "${'x'.repeat(900_000)}`, '"'.repeat(900_000), "{'a':".repeat(150_000), 'f('.repeat(400_000)]) {
      const result = repairArguments(raw);
      assert.equal(typeof result.ok, 'boolean');
    }
  });
});
