// What a test run changed in the checkout. A test that rewrites a tracked file
// (a screenshot, a fixture) or leaves a new one behind makes every run dirty the
// tree: scripts/run-tests.ts takes a snapshot before and compares after.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Path → its `git status` code and a hash of its content, for every file git sees as changed or new. */
export type TreeSnapshot = Map<string, string>;

/**
 * The changed and untracked (not ignored) files of the checkout at `root`, each
 * with a hash of its content, so a file already changed before the run that a
 * test changes again is seen too. Undefined outside a git checkout or without git.
 */
export function treeSnapshot(root: string): TreeSnapshot | undefined {
  const status = spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (status.error !== undefined || status.status !== 0) return undefined;
  const snapshot: TreeSnapshot = new Map();
  const entries = status.stdout.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] ?? '';
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    // A rename or copy is followed by the path it came from.
    if (code.includes('R') || code.includes('C')) i++;
    snapshot.set(path, `${code} ${contentHash(join(root, path))}`);
  }
  return snapshot;
}

/** The paths whose status or content differ between two snapshots, sorted. */
export function changedPaths(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

function contentHash(path: string): string {
  try {
    return createHash('sha1').update(readFileSync(path)).digest('hex');
  } catch {
    // Deleted, or a directory (a submodule): the status code says enough.
    return '-';
  }
}
