// toolgate as users run it: the built package (dist/, JavaScript), not the
// TypeScript sources, whose type stripping at load would be charged to
// toolgate's start-up and memory. BENCH_TOOLGATE=src measures the sources.
import { spawnSync } from 'node:child_process';
import { existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Undici from 'undici';
import type * as ToolgateSources from '../../src/index.ts';
import type { Zod } from './zod-shapes.ts';

/**
 * The repository's root: the folder above this file whose package.json is
 * toolgate's. Found, not counted in `../`: this module also runs bundled into
 * the built harness (harness-build.ts), one folder deeper.
 */
export function repositoryRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'toolgate')
      return `${dir}/`;
    if (dirname(dir) === dir) throw new Error('toolgate-package: no toolgate package.json above the benchmark');
  }
}

const ROOT = repositoryRoot();
const BUILT = pathToFileURL(join(ROOT, 'dist/src/index.js'));
const SOURCES = pathToFileURL(join(ROOT, 'src/index.ts'));

export type ToolgateModule = typeof ToolgateSources;

export function toolgateFrom(): 'dist' | 'src' {
  return process.env['BENCH_TOOLGATE'] === 'src' ? 'src' : 'dist';
}

/** Builds dist/ when it is missing or older than a source file (parent process, before any runner). */
export function ensureToolgateBuilt(log: (line: string) => void): void {
  if (toolgateFrom() === 'src') return;
  const built = fileURLToPath(BUILT);
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  const newest = Math.max(...globSync('src/**/*.ts', { cwd: ROOT }).map((f) => statSync(`${ROOT}${f}`).mtimeMs));
  if (builtAt >= newest) return;
  log('building toolgate (dist/) for the toolgate runners…');
  const result = spawnSync(process.execPath, ['scripts/build.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`the toolgate build failed (exit ${String(result.status)})`);
}

/** The package.json of a package as toolgate itself resolves it. */
function toolgateDependencyManifest(name: string): string {
  const manifest = findPackageJSON(name, toolgateFrom() === 'src' ? SOURCES : BUILT);
  if (manifest === undefined)
    throw new Error(`toolgate-package: toolgate resolves no ${name} (run npm ci at the repository root)`);
  return manifest;
}

/** The version of a package as toolgate itself resolves it, for the report. */
export function toolgateDependencyVersion(name: string): string {
  try {
    const manifest = toolgateDependencyManifest(name);
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

/** The ESM entry of a package as toolgate itself resolves it (its `exports['.'].import`, else its `main`). */
async function importToolgateDependency(name: string): Promise<unknown> {
  const manifest = toolgateDependencyManifest(name);
  const { exports, main } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports?: { '.'?: { import?: string } };
    main?: string;
  };
  const entry = exports?.['.']?.import ?? main;
  if (entry === undefined) throw new Error(`toolgate-package: ${manifest} names no entry`);
  return import(pathToFileURL(join(dirname(manifest), entry)).href);
}

/**
 * zod as toolgate itself resolves it. In a user's project toolgate's zod (^4)
 * and the user's are one copy (npm keeps one of a compatible version); here
 * toolgate is loaded from the repository, beside its own node_modules, so the
 * bench package's zod would be a second copy (about 8 MB) that no user loads.
 * The toolgate runners define their tools with this one.
 */
export async function loadToolgateZod(): Promise<Zod> {
  return (await importToolgateDependency('zod')) as Zod;
}

/**
 * undici as toolgate itself resolves it: the copy toolgate's model calls go
 * through, for the loop written directly on it (runners/baseline-undici.ts),
 * so that loop and toolgate run the same client code and no second copy is loaded.
 */
export async function loadToolgateUndici(): Promise<typeof Undici> {
  return (await importToolgateDependency('undici')) as typeof Undici;
}

/** The toolgate module the runners use. */
export async function loadToolgate(): Promise<ToolgateModule> {
  const url = toolgateFrom() === 'src' ? SOURCES.href : BUILT.href;
  return (await import(url)) as ToolgateModule;
}
