// scripts/run-tests.ts itself, run as `npm test` runs it, in a throwaway git
// checkout of its own: a run that rewrites a tracked file or leaves a new one
// behind fails naming it, and --repeat runs every file again, counting each pass.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, runProcess } from '../support/processes.ts';

const hasGit = spawnSync('git', ['--version']).status === 0;

/** Test files of the throwaway checkout, by name. */
const TESTS: Record<string, string> = {
  // Passes, touching nothing.
  'clean.test.ts': `import { it } from 'node:test';\nit('clean', () => {});\n`,
  // Rewrites a tracked file, as the console tests once rewrote docs/screenshots/.
  'rewrites.test.ts':
    `import { it } from 'node:test';\nimport { writeFileSync } from ` +
    `'node:fs';\nit('rewrites', () => writeFileSync('docs/shot.png', 'new pixels'));\n`,
  // Writes a screenshot of the docs when asked to, as the console's browser tests do.
  'screenshot.test.ts':
    `import { it } from 'node:test';\nimport { writeFileSync } from 'node:fs';\nit('screenshot', ` +
    (`() => { if (process.env.UPDATE_SCREENSHOTS === '1') ` +
      `writeFileSync('docs/screenshots/view.png', 'new pixels'); });\n`),
  // Leaves a file behind in the tree.
  'litters.test.ts':
    `import { it } from 'node:test';\nimport { writeFileSync } from ` +
    `'node:fs';\nit('litters', () => writeFileSync('left-behind.txt', 'x'));\n`,
  // Leaves a timer running: the run still ends.
  'leaves-timer.test.ts':
    `import { it } from 'node:test';\nit('leaves a ` + `timer', () => { setInterval(() => {}, 60_000); });\n`,
  // Ends the process it runs in, halfway.
  // Starts a process that a top-level after() hook stops only after other cleanup (as a file closing its
  // clients first does): the shared lane ends without waiting for that hook.
  'leaves-child.test.ts':
    `import { after, it } from 'node:test';\nimport { spawn } from 'node:child_process';\nimport ` +
    (`{ writeFileSync } from 'node:fs';\nconst child = spawn(process.execPath, ['-e', 'setInterval(() => ` +
      (`{}, 60_000)'], { stdio: 'ignore' });\nafter(async () => {\n  await new Promise((resolve) => ` +
        (`setTimeout(resolve, 2000));\n  child.kill();\n});\nit('leaves a child', ` +
          `() => writeFileSync(process.env.MARKER + '-child', String(child.pid)));\n`))),
  'exits.test.ts': `import { it } from 'node:test';\nit('exits', () => { process.exit(3); });\n`,
  // Which process each ran in: two unit files and an end-to-end one.
  'pid-a.test.ts':
    `import { it } from 'node:test';\nimport { writeFileSync } from 'node:fs';\nit('pid ` +
    `a', () => writeFileSync(process.env.MARKER + '-pid-a', String(process.pid)));\n`,
  'pid-b.test.ts':
    `import { it } from 'node:test';\nimport { writeFileSync } from 'node:fs';\nit('pid ` +
    `b', () => writeFileSync(process.env.MARKER + '-pid-b', String(process.pid)));\n`,
  'e2e/pid-e.test.ts':
    `import { it } from 'node:test';\nimport { writeFileSync } from 'node:fs';\nit('pid ` +
    `e', () => writeFileSync(process.env.MARKER + '-pid-e', String(process.pid)));\n`,
  // Fails on every run after its first (a marker outside the tree tells them apart): only a second pass sees it.
  'second-time.test.ts':
    `import { it } from 'node:test';\nimport { existsSync, writeFileSync } from ` +
    (`'node:fs';\nconst marker = process.env.MARKER ?? '';\nit('second time', () => {\n  if ` +
      `(existsSync(marker)) throw new Error('failed on a later pass');\n  writeFileSync(marker, '');\n});\n`),
};

describe('scripts/run-tests.ts', { skip: hasGit ? false : 'git is not installed' }, () => {
  let dir: string;
  let markers: string;

  const git = (...args: string[]): void => {
    const result = spawnSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
  };
  const runTests = (args: string[], env: Record<string, string> = {}) => {
    // This file runs as a child of a test runner: the runner under test must not think it is one too,
    // nor take the settings of the run around it (CI repeats the suite; a person may isolate it).
    const {
      NODE_TEST_CONTEXT: _,
      TEST_REPEAT: _repeat,
      TEST_ISOLATION: _isolation,
      UPDATE_SCREENSHOTS: _screenshots,
      ...outer
    } = process.env;
    return runProcess({
      args: [join(dir, 'scripts', 'run-tests.ts'), ...args],
      cwd: dir,
      env: { ...outer, MARKER: join(markers, 'second-time'), ...env },
      timeoutMs: 60_000,
    });
  };
  const lastLine = (text: string): string => text.trim().split('\n').at(-1) ?? '';
  /** Whether a process is still running (Linux: a killed child whose parent is gone may stay a zombie until reaped). */
  const running = (pid: number): boolean => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
    } catch {
      return false;
    }
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-run-tests-'));
    markers = mkdtempSync(join(tmpdir(), 'toolgate-run-tests-markers-'));
    mkdirSync(join(dir, 'scripts'));
    // The runner and the modules beside it.
    for (const script of readdirSync(join(ROOT, 'scripts')).filter((name) => name.endsWith('.ts')))
      copyFileSync(join(ROOT, 'scripts', script), join(dir, 'scripts', script));
    mkdirSync(join(dir, 'test', 'e2e'), { recursive: true });
    for (const [name, text] of Object.entries(TESTS)) writeFileSync(join(dir, 'test', name), text);
    mkdirSync(join(dir, 'docs', 'screenshots'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'shot.png'), 'old pixels');
    writeFileSync(join(dir, 'docs', 'screenshots', 'view.png'), 'old pixels');
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(markers, { recursive: true, force: true });
  });

  it(
    'a run that rewrites a tracked file fails, naming the file ' +
      'and how to avoid it; so does one that leaves a file behind',
    async () => {
      try {
        const result = await runTests(['rewrites', 'litters']);
        assert.equal(result.code, 1, result.stdout + result.stderr);
        assert.match(
          result.stdout,
          new RegExp(
            String.raw`these files of the checkout changed during the run ` +
              String.raw`\(a test must write to a temporary directory instead; ` +
              String.raw`screenshots only with UPDATE_SCREENSHOTS=1\):\n {2}docs\/shot\.png\n {2}left-behind\.txt\n`,
          ),
        );
        assert.equal(lastLine(result.stdout), '2 passed, 1 failed');
      } finally {
        git('checkout', '--', 'docs/shot.png');
        rmSync(join(dir, 'left-behind.txt'), { force: true });
      }
    },
  );

  it('with UPDATE_SCREENSHOTS=1, rewritten screenshots of the docs are what was asked for, and named', async () => {
    try {
      const result = await runTests(['screenshot'], { UPDATE_SCREENSHOTS: '1' });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(result.stdout, /screenshots written:\n {2}docs\/screenshots\/view\.png\n/);
      assert.equal(lastLine(result.stdout), '1 passed, 0 failed');
    } finally {
      git('checkout', '--', 'docs/screenshots/view.png');
    }
  });

  it('a file already changed before the run, changed again by a test, is seen too', async () => {
    writeFileSync(join(dir, 'docs', 'shot.png'), 'edited by hand');
    try {
      const result = await runTests(['rewrites']);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stdout, /\n {2}docs\/shot\.png\n/);
    } finally {
      git('checkout', '--', 'docs/shot.png');
    }
  });

  it(
    'a run that changes nothing passes; --repeat 2 (or TEST_REPEAT=2) ' +
      'runs every file twice, and the last line counts both passes',
    async () => {
      const twice = await runTests(['--repeat', '2', 'clean']);
      assert.equal(twice.code, 0, twice.stdout + twice.stderr);
      assert.match(twice.stdout, /== pass 1 of 2[\s\S]*== pass 2 of 2/);
      assert.equal(lastLine(twice.stdout), '2 passed, 0 failed');
      const byEnv = await runTests(['clean'], { TEST_REPEAT: '2' });
      assert.equal(lastLine(byEnv.stdout), '2 passed, 0 failed');

      // A test that fails only when run again passes a single run, and not two.
      rmSync(join(markers, 'second-time'), { force: true });
      const flaky = await runTests(['--repeat', '2', 'second-time']);
      assert.equal(flaky.code, 1, flaky.stdout + flaky.stderr);
      assert.equal(lastLine(flaky.stdout), '1 passed, 1 failed');
      // What failed is said with its error, although the shared process ends before node's own summary.
      assert.match(
        flaky.stdout,
        new RegExp(
          String.raw`✖ failing tests of the files sharing one process:\n\ntest at test\/second-` +
            String.raw`time\.test\.ts:\d+:\d+\n✖ second time\n {2}Error: failed on a later pass\n`,
        ),
      );
    },
  );

  it(
    'the unit files share one process per pass, each end-to-end file ' +
      'has its own; TEST_ISOLATION=process gives every file its own',
    async () => {
      const pids = (): Record<string, string> =>
        Object.fromEntries(
          ['a', 'b', 'e'].map((name) => [name, readFileSync(join(markers, `second-time-pid-${name}`), 'utf8')]),
        );
      const shared = await runTests(['pid-']);
      assert.equal(lastLine(shared.stdout), '3 passed, 0 failed', shared.stdout + shared.stderr);
      const one = pids();
      assert.equal(one['a'], one['b'], 'the unit files ran in one process');
      assert.notEqual(one['e'], one['a'], 'the end-to-end file ran in a process of its own');
      assert.ok(![one['a'], one['e']].includes(String(process.pid)));

      const isolated = await runTests(['pid-'], { TEST_ISOLATION: 'process' });
      assert.equal(lastLine(isolated.stdout), '3 passed, 0 failed', isolated.stdout + isolated.stderr);
      const two = pids();
      assert.equal(new Set(Object.values(two)).size, 3, 'three files, three processes');
    },
  );

  it(
    'a unit test that leaves a timer running does not keep the run ' +
      'from ending; one that ends its process is a failure said plainly',
    async () => {
      const timer = await runTests(['leaves-timer', 'clean']);
      assert.equal(timer.code, 0, timer.stdout + timer.stderr);
      assert.equal(lastLine(timer.stdout), '2 passed, 0 failed');

      // A process a unit test started and had not stopped yet goes with the lane, not on running after it.
      const child = await runTests(['leaves-child'], { MARKER: join(markers, 'leaves') });
      assert.equal(child.code, 0, child.stdout + child.stderr);
      const childPid = Number(readFileSync(join(markers, 'leaves-child'), 'utf8'));
      assert.equal(running(childPid), false, `process ${childPid} outlived the run`);

      const exits = await runTests(['exits']);
      assert.equal(exits.code, 1, exits.stdout + exits.stderr);
      assert.match(
        exits.stdout,
        new RegExp(
          String.raw`✖ the process running the unit and contract tests ended` +
            String.raw` \(3\) before it could count them: see its output above\n`,
        ),
      );
      assert.equal(lastLine(exits.stdout), '0 passed, 1 failed');
    },
  );

  it('a repeat count that is not a whole number from 1 is refused, saying what is expected', async () => {
    for (const [args, env, name] of [
      [['--repeat', 'twice', 'clean'], {}, '--repeat'],
      [['clean'], { TEST_REPEAT: '0' }, 'TEST_REPEAT'],
    ] as const) {
      const result = await runTests([...args], env);
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`${name} ".+": expected how many times to run the tests, a whole number from 1 to 100`),
      );
    }
  });

  it('outside a git checkout the tests still run', async () => {
    rmSync(join(dir, '.git'), { recursive: true, force: true });
    try {
      const result = await runTests(['clean']);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.equal(lastLine(result.stdout), '1 passed, 0 failed');
    } finally {
      git('init', '-q');
      git('add', '-A');
      git('commit', '-q', '-m', 'fixture again');
    }
  });
});
