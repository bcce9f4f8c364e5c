import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repairArguments } from './repair-arguments.ts';

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
