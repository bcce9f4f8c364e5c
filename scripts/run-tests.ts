// Runs every *.test.ts under src/, test/, examples/ and web/ with node's test runner,
// prints the spec report, and ends with one plain line "N passed, N failed".
// Usage: node scripts/run-tests.ts [path-substring ...]   (filters test files)
import { globSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const filters = process.argv.slice(2);
const files = ['src', 'test', 'examples', 'web']
  .flatMap((dir) => globSync(`${dir}/**/*.test.ts`))
  .filter((f) => !f.includes('node_modules'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

// Commands under test record runs in the user's data directory by default:
// point it at a folder of this test run, never at the real one.
if (process.env['TOOLGATE_HOME'] === undefined) {
  process.env['TOOLGATE_HOME'] = mkdtempSync(join(tmpdir(), 'toolgate-test-home-'));
  process.on('exit', () => rmSync(process.env['TOOLGATE_HOME'] ?? '', { recursive: true, force: true }));
}

let passed = 0;
let failed = 0;
const stream = run({
  files,
  concurrency: Math.max(2, availableParallelism()),
  timeout: Number(process.env['TEST_TIMEOUT_MS'] ?? 180_000),
});
stream.on('test:pass', (data) => {
  if (data.details.type !== 'suite' && data.skip === undefined && data.todo === undefined) passed += 1;
});
stream.on('test:fail', (data) => {
  if (data.details.type !== 'suite') failed += 1;
});
stream.compose(spec).pipe(process.stdout);
stream.on('end', () => {
  // Let the spec reporter flush its summary before our final line.
  setImmediate(() => {
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
    process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
  });
});
