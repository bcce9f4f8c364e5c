import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { longestFirst, readDurations, writeDurations } from '../../scripts/test-order.ts';

describe('the order test files start in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-test-order-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('longest first by the last durations; untimed e2e files before untimed unit files; ties by path', () => {
    const files = [
      'src/a.test.ts',
      'src/b.test.ts',
      'test/e2e/new.e2e.test.ts',
      'test/e2e/slow.e2e.test.ts',
      'test/e2e/quick.e2e.test.ts',
    ];
    const known = { 'test/e2e/slow.e2e.test.ts': 90_000, 'test/e2e/quick.e2e.test.ts': 1_000, 'src/b.test.ts': 3_000 };
    assert.deepEqual(longestFirst(files, known), [
      'test/e2e/slow.e2e.test.ts',
      'test/e2e/new.e2e.test.ts',
      'src/b.test.ts',
      'test/e2e/quick.e2e.test.ts',
      'src/a.test.ts',
    ]);
  });

  it('keeps what it knew about other files; a missing or broken file is no durations at all', () => {
    const path = join(dir, 'cache', 'durations.json');
    assert.deepEqual(readDurations(path), {});
    writeDurations(path, { 'src/a.test.ts': 10 });
    writeDurations(path, { 'src/b.test.ts': 20, 'src/a.test.ts': 30 });
    assert.deepEqual(readDurations(path), { 'src/a.test.ts': 30, 'src/b.test.ts': 20 });
    writeFileSync(path, '{ not json');
    assert.deepEqual(readDurations(path), {});
    writeFileSync(path, '{"src/a.test.ts": "slow", "src/b.test.ts": 5}');
    assert.deepEqual(readDurations(path), { 'src/b.test.ts': 5 });
  });
});
