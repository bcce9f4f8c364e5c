import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dataDir, defaultRunsDb, preparePrivateDbFile } from './data-dir.ts';

describe('the data directory', () => {
  it('is TOOLGATE_HOME, else $XDG_DATA_HOME/toolgate, else ~/.local/share/toolgate', () => {
    assert.equal(dataDir({ env: { TOOLGATE_HOME: '/t', XDG_DATA_HOME: '/x', HOME: '/h' }, cwd: '/w' }), '/t');
    assert.equal(dataDir({ env: { TOOLGATE_HOME: 'rel' }, cwd: '/w' }), join('/w', 'rel'));
    assert.equal(dataDir({ env: { XDG_DATA_HOME: '/x', HOME: '/h' }, cwd: '/w' }), join('/x', 'toolgate'));
    // A relative XDG_DATA_HOME is invalid by the spec and ignored.
    assert.equal(
      dataDir({ env: { XDG_DATA_HOME: 'x', HOME: '/h' }, cwd: '/w' }),
      join('/h', '.local', 'share', 'toolgate'),
    );
    assert.equal(
      dataDir({ env: { TOOLGATE_HOME: '', HOME: '/h' }, cwd: '/w' }),
      join('/h', '.local', 'share', 'toolgate'),
    );
    assert.equal(defaultRunsDb({ env: { TOOLGATE_HOME: '/t' }, cwd: '/w' }), join('/t', 'runs.db'));
  });

  it(
    'a new store file and its new folder are private to the user; an existing file is left alone',
    { skip: process.platform === 'win32' },
    () => {
      const root = mkdtempSync(join(tmpdir(), 'toolgate-data-dir-'));
      try {
        const file = join(root, 'a', 'b', 'runs.db');
        preparePrivateDbFile(file);
        assert.equal(statSync(join(root, 'a', 'b')).mode & 0o777, 0o700);
        assert.equal(statSync(file).mode & 0o777, 0o600);
        assert.equal(statSync(file).size, 0);
        writeFileSync(file, 'kept');
        preparePrivateDbFile(file);
        assert.equal(readFileSync(file, 'utf8'), 'kept');
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
