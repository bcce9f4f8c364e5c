import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { storeTrustProblem } from './runs-trust.ts';

describe('which stores may start the servers they record', { skip: process.getuid === undefined }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-trust-'));
  const file = join(dir, 'runs.db');
  writeFileSync(file, '');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const uid = process.getuid?.() ?? 0;

  it('a private store of this user is trusted', () => {
    chmodSync(file, 0o600);
    chmodSync(dir, 0o700);
    assert.equal(storeTrustProblem({ path: file }), undefined);
  });

  it('a store file or folder others can write is not', () => {
    chmodSync(file, 0o666);
    assert.match(
      storeTrustProblem({ path: file }) ?? '',
      /store file .*runs\.db is writable by other users \(mode 666/,
    );
    chmodSync(file, 0o600);
    chmodSync(dir, 0o777);
    assert.match(storeTrustProblem({ path: file }) ?? '', /folder .* is writable by other users/);
    chmodSync(dir, 0o700);
  });

  it("another user's store is not", () => {
    assert.match(storeTrustProblem({ path: file, uid: uid + 1 }) ?? '', /belongs to another user/);
  });
});
