import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAppendedPayload } from './postgres-listener.ts';

describe('parseAppendedPayload', () => {
  it('reads <runId>:<lastEventId>, the run id may hold colons', () => {
    assert.deepEqual(parseAppendedPayload('run_abc:12'), { runId: 'run_abc', lastEventId: 12 });
    assert.deepEqual(parseAppendedPayload('tenant:run:3'), { runId: 'tenant:run', lastEventId: 3 });
  });

  it('ignores whatever does not parse', () => {
    for (const payload of [
      undefined,
      '',
      'garbage',
      ':5',
      'run_1:',
      'run_1:0',
      'run_1:-1',
      'run_1:1.5',
      'run_1:x',
      'run_1:1e3',
      'run_1:9999999999999999',
    ]) {
      assert.equal(parseAppendedPayload(payload), undefined, String(payload));
    }
  });
});
