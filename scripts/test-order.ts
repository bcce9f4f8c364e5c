// The order test files start in: longest first. A run has as many files going
// at once as there are cores; a long file that starts last keeps one core busy
// while the others sit idle at the end. How long each file took last time is
// kept beside the compile cache; a file never timed yet counts as an e2e file
// (they start processes and wait for them) or as a quick one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Milliseconds a file took, by its path. */
export type FileDurations = Record<string, number>;

/** What an untimed e2e file is taken to last: ahead of the unit files, behind the e2e files timed as long. */
const UNTIMED_E2E_MS = 20_000;

export function readDurations(path: string): FileDurations {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
    );
  } catch {
    return {};
  }
}

/** Adds this run's durations to the ones kept; nothing is lost when the cache cannot be written. */
export function writeDurations(path: string, measured: FileDurations): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify({ ...readDurations(path), ...measured })}\n`);
  } catch {
    // Only the next run's order depends on it.
  }
}

/** `files` longest first (by `known`), ties by path. */
export function longestFirst(files: readonly string[], known: FileDurations): string[] {
  const expected = (file: string): number => known[file] ?? (file.startsWith('test/e2e/') ? UNTIMED_E2E_MS : 0);
  return [...files].sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
}
