// One lane of a test run: node's test runner over some files, its spec report on
// stdout, and a tally of what passed and failed and how long each file took.
import { relative } from 'node:path';
import { inspect } from 'node:util';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import type { FileDurations } from './test-order.ts';

export interface LaneTally {
  passed: number;
  failed: number;
  /** Milliseconds each file took, by its path relative to the working directory. */
  durations: FileDurations;
}

export interface LaneOptions {
  /** 'process': each file in a process of its own; 'none': the files one after another in this process. */
  isolation: 'process' | 'none';
  /** How many files at once (with isolation 'process'). */
  concurrency: number;
}

export function emptyTally(): LaneTally {
  return { passed: 0, failed: 0, durations: {} };
}

/** Runs `files`, adding what it sees to `tally`; resolves once the report has reached stdout. */
export async function runLane(files: readonly string[], options: LaneOptions, tally: LaneTally): Promise<void> {
  if (files.length === 0) return;
  const stream = run({
    files: [...files],
    isolation: options.isolation,
    concurrency: options.isolation === 'none' ? 1 : options.concurrency,
    timeout: Number(process.env['TEST_TIMEOUT_MS'] ?? 180_000),
  });
  stream.on('test:pass', (data) => {
    if (data.details.type !== 'suite' && data.skip === undefined && data.todo === undefined) tally.passed += 1;
  });
  const failures: string[] = [];
  stream.on('test:fail', (data) => {
    // A todo test may fail: node's own summary counts it as todo, not as a failure.
    if (data.details.type === 'suite' || data.todo !== undefined) return;
    tally.failed += 1;
    const where =
      data.file === undefined
        ? ''
        : `test at ${relative(process.cwd(), data.file)}:${data.line ?? 0}:${data.column ?? 0}\n`;
    const error: unknown = data.details.error;
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    failures.push(`${where}✖ ${data.name}\n${inspect(cause, { depth: 4 }).replace(/^/gm, '  ')}\n`);
  });
  stream.on('test:complete', (data) => {
    if (data.nesting !== 0 || data.file === undefined) return;
    const file = relative(process.cwd(), data.file);
    tally.durations[file] = (tally.durations[file] ?? 0) + data.details.duration_ms;
  });
  const report = stream.compose(spec);
  report.pipe(process.stdout, { end: false });
  const reported = new Promise<void>((resolve) => report.once('end', resolve));
  if (options.isolation === 'process') {
    await reported;
  } else {
    // Files sharing this process end only once its event loop is empty, which a test that
    // left a timer or a socket open would put off for ever. Every file is loaded (and its
    // top-level tests queued) before the first test starts: once as many top-level tests
    // have completed as were queued, the lane is over.
    let queued = 0;
    let completed = 0;
    const done = Promise.withResolvers<void>();
    stream.on('test:enqueue', (data) => {
      if (data.nesting === 0) queued += 1;
    });
    stream.on('test:complete', (data) => {
      if (data.nesting === 0 && ++completed >= queued) done.resolve();
    });
    await Promise.race([reported, done.promise]);
    // The report of the last test is a few ticks behind its event.
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The spec reporter lists failures with their errors only when the whole run ends, which this lane does not wait
    // for.
    if (failures.length > 0)
      process.stdout.write(`\n✖ failing tests of the files sharing one process:\n\n${failures.join('\n')}`);
  }
  // Let the spec reporter's summary reach stdout before the next line.
  await new Promise<void>((resolve) => setImmediate(resolve));
}
