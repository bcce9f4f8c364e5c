// The CLI at its edges: an old Node, a reader that goes away, the Node helper script.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT, TOOLGATE_BIN } from '../support/processes.ts';

const exec = promisify(execFile);

/** Makes this Node report another version, as an old Node would. */
const pretend = (version: string) =>
  `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;

async function runNode(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, args, { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

function assertSentence(stderr: string, version: string): void {
  assert.match(
    stderr,
    new RegExp(
      `toolgate needs Node\\.js 22\\.18 or newer \\(Node 24 LTS ` +
        `recommended\\), but this is Node ${version.replaceAll('.', '\\.')}`,
    ),
  );
  assert.match(stderr, /export PATH="\$\(bash scripts\/ensure-node\.sh\):\$PATH"/);
  assert.doesNotMatch(stderr, /ERR_|\n\s+at /, 'no stack trace');
}

describe('an old Node gets a sentence, not a stack trace', () => {
  for (const args of [['--version'], ['run', 'hello', '--model', 'openai:x'], ['demo']]) {
    test(`toolgate ${args.join(' ')} on Node 20`, async () => {
      const result = await runNode(['--import', pretend('20.19.0'), TOOLGATE_BIN, ...args]);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assertSentence(result.stderr, '20.19.0');
    });
  }

  test(
    'npm test, npm start and npm run bench check first ' + '(pretest, prestart, prebench), with the same sentence',
    async () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      // The check comes before anything else they do (building the console runs TypeScript, which old Node cannot).
      for (const script of ['pretest', 'prestart', 'prebench'])
        assert.match(pkg.scripts[script] ?? '', /^node bin\/check-node\.js(?: && |$)/, script);
      const old = await runNode(['--import', pretend('22.17.0'), join(ROOT, 'bin', 'check-node.js')]);
      assert.equal(old.code, 1);
      assertSentence(old.stderr, '22.17.0');
      const current = await runNode([join(ROOT, 'bin', 'check-node.js')]);
      assert.deepEqual(current, { code: 0, stdout: '', stderr: '' });
    },
  );

  test('a real older Node on PATH, when this machine has one', async (t) => {
    const old = oldNodeOnPath();
    if (old === undefined) {
      t.skip('no Node older than 22.18 on PATH');
      return;
    }
    const result = await exec(old.path, [TOOLGATE_BIN, '--version'], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? '' }),
    );
    assert.equal(result.code, 1);
    assertSentence(result.stderr, old.version);
  });
});

function oldNodeOnPath(): { path: string; version: string } | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    try {
      const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      const [major = 0, minor = 0] = version.split('.').map(Number);
      if (major < 22 || (major === 22 && minor < 18)) return { path: candidate, version };
    } catch {
      // not a working node
    }
  }
  return undefined;
}

describe('a reader that goes away', () => {
  for (const args of [['demo', '--json'], ['demo']]) {
    test(`toolgate ${args.join(' ')} | (reader closes after the first output) ends quietly`, async () => {
      const child = spawn(process.execPath, [TOOLGATE_BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      assert.doesNotMatch(stderr, /EPIPE|ERR_STREAM|unexpected error|\n\s+at /, `stderr:\n${stderr}`);
      assert.notEqual(code, null, 'exits by itself');
    });
  }
});
