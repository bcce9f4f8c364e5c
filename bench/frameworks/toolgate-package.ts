// toolgate as users run it: the built package (dist/, JavaScript), not the
// TypeScript sources, whose type stripping at load would be charged to
// toolgate's start-up and memory. BENCH_TOOLGATE=src measures the sources.
import { spawnSync } from 'node:child_process';
import { existsSync, globSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as ToolgateSources from '../../src/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = new URL('../../dist/src/index.js', import.meta.url);
const SOURCES = new URL('../../src/index.ts', import.meta.url);

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
  const result = spawnSync(process.execPath, ['scripts/build.ts'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`the toolgate build failed (exit ${String(result.status)})`);
}

/** The toolgate module the runners use. */
export async function loadToolgate(): Promise<ToolgateModule> {
  const url = toolgateFrom() === 'src' ? SOURCES.href : BUILT.href;
  return (await import(url)) as ToolgateModule;
}
