// The comparison's own npm package (bench/package.json): installed with
// `npm ci` when bench/node_modules is missing or does not match the lockfile,
// so the frameworks compared never become dependencies of toolgate.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const INSTALL_ARGS = ['ci', '--prefix', 'bench', '--no-audit', '--no-fund'];

interface Lockfile {
  packages?: Record<string, { version?: string; optional?: boolean }>;
}

function readLock(path: string): Lockfile | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Lockfile;
  } catch {
    return undefined;
  }
}

/** Why bench/node_modules must be (re)installed, or undefined when it matches bench/package-lock.json. */
export function staleReason(): string | undefined {
  const wanted = readLock(join(BENCH_DIR, 'package-lock.json'));
  if (wanted === undefined)
    throw new Error(
      'bench/package-lock.json is missing or unreadable: run `npm install --prefix bench` once to create it',
    );
  const installed = readLock(join(BENCH_DIR, 'node_modules', '.package-lock.json'));
  if (installed === undefined) return 'bench/node_modules is missing';
  for (const [path, entry] of Object.entries(wanted.packages ?? {})) {
    if (path === '') continue;
    const have = installed.packages?.[path]?.version;
    // An optional package npm skipped (another platform's binary) is not missing.
    if (have === undefined && entry.optional === true) continue;
    if (have !== entry.version)
      return (
        `${path.replace(/^node_modules\//, '')} is ` +
        `${have ?? 'not installed'}, the lockfile says ${entry.version ?? '?'}`
      );
  }
  return undefined;
}

/** Installs the bench package when needed, saying so; throws when npm fails. */
export function ensureBenchDeps(log: (line: string) => void = console.log): void {
  const reason = staleReason();
  if (reason === undefined) return;
  const root = join(BENCH_DIR, '..');
  log(`${reason}: installing the frameworks comparison's packages (npm ${INSTALL_ARGS.join(' ')})`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, INSTALL_ARGS, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0)
    throw new Error(
      `npm ${INSTALL_ARGS.join(' ')} failed (${result.error?.message ?? `exit code ${String(result.status)}`})`,
    );
  if (!existsSync(join(BENCH_DIR, 'node_modules'))) throw new Error('npm ci ran, yet bench/node_modules is missing');
}

/** The installed version of a package of the bench package, read from its package.json. */
export function installedVersion(name: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(BENCH_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'not installed';
  }
}
