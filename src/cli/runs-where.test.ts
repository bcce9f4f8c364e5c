import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { localStoreFor, resumeFlags, shellQuote, whereFor } from './runs-where.ts';

const env = { TOOLGATE_HOME: '/home/u/tg' };

describe('where toolgate runs looks', () => {
  it(
    'run: the default store is runs.db in the data directory; ' +
      'sqlite: paths resolve against cwd; memory: has no file',
    () => {
      assert.deepEqual(localStoreFor({ flag: undefined, env, cwd: '/w' }), {
        kind: 'local',
        spec: 'sqlite:/home/u/tg/runs.db',
        path: '/home/u/tg/runs.db',
        isDefault: true,
      });
      assert.deepEqual(localStoreFor({ flag: 'sqlite:./r.db', env, cwd: '/w' }), {
        kind: 'local',
        spec: `sqlite:${join('/w', 'r.db')}`,
        path: join('/w', 'r.db'),
        isDefault: false,
      });
      assert.deepEqual(localStoreFor({ flag: 'memory:', env, cwd: '/w' }), {
        kind: 'local',
        spec: 'memory:',
        isDefault: false,
      });
      assert.equal(localStoreFor({ flag: 'sqlite::memory:', env, cwd: '/w' }).path, undefined);
      assert.throws(() => localStoreFor({ flag: 'postgres://x', env, cwd: '/w' }), /use sqlite:<file> or memory:/);
      assert.throws(() => localStoreFor({ flag: 'sqlite:', env, cwd: '/w' }), /needs a file/);
    },
  );

  it('runs: --url wins, then --store, then TOOLGATE_URL, then the default store; --store with --url is refused', () => {
    const remote = whereFor({ values: { url: 'http://h:8787/', 'api-key': 'k' }, env, cwd: '/w' });
    assert.deepEqual(remote, { kind: 'remote', url: 'http://h:8787', apiKey: 'k', urlFromFlag: true });
    const fromEnv = whereFor({
      values: {},
      env: { ...env, TOOLGATE_URL: 'http://e:1', TOOLGATE_API_KEY: 'ek' },
      cwd: '/w',
    });
    assert.deepEqual(fromEnv, { kind: 'remote', url: 'http://e:1', apiKey: 'ek', urlFromFlag: false });
    assert.equal(
      whereFor({ values: { store: 'sqlite:/s.db' }, env: { ...env, TOOLGATE_URL: 'http://e:1' }, cwd: '/w' }).kind,
      'local',
    );
    assert.equal(whereFor({ values: {}, env, cwd: '/w' }).kind, 'local');
    assert.throws(
      () => whereFor({ values: { store: 'sqlite:/s.db', url: 'http://h' }, env, cwd: '/w' }),
      /give one of them/,
    );
    assert.throws(() => whereFor({ values: { url: 'ftp://h' }, env, cwd: '/w' }), /http:\/\/ or https:\/\//);
    assert.throws(() => whereFor({ values: { url: 'not a url' }, env, cwd: '/w' }), /not a URL/);
  });

  it(
    'the flags a later command needs: none for the defaults, ' +
      '--store or --url otherwise, undefined when nothing is kept',
    () => {
      assert.equal(resumeFlags(localStoreFor({ flag: undefined, env, cwd: '/w' })), '');
      assert.equal(
        resumeFlags(localStoreFor({ flag: 'sqlite:/a b/r.db', env, cwd: '/w' })),
        " --store 'sqlite:/a b/r.db'",
      );
      assert.equal(resumeFlags(localStoreFor({ flag: 'memory:', env, cwd: '/w' })), undefined);
      assert.equal(resumeFlags({ kind: 'remote', url: 'http://h:1', urlFromFlag: true }), ' --url http://h:1');
      assert.equal(resumeFlags({ kind: 'remote', url: 'http://h:1', urlFromFlag: false }), '');
    },
  );

  it('quotes only what the shell would split or expand', () => {
    assert.equal(shellQuote('sqlite:/tmp/r.db'), 'sqlite:/tmp/r.db');
    assert.equal(shellQuote("it's $HOME"), "'it'\\''s $HOME'");
  });
});
