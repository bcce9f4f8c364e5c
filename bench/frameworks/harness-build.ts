// The harness as JavaScript. Node runs TypeScript by stripping its types at
// load, and the stripper costs every process about 17 MB and some start-up:
// charged to whichever runner it was, it would hide what the frameworks
// themselves cost. So compare.ts builds the child, the HTTP client and every
// runner with esbuild (packages stay external: each resolves its own, as
// installed) into bench/.build/frameworks/, with the layout of
// bench/frameworks/, and starts those. BENCH_HARNESS=ts runs the sources.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RUNNERS } from './runners-list.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const BUILT_HARNESS_DIR = fileURLToPath(new URL('../.build/frameworks/', import.meta.url));

export function harnessFrom(): 'built' | 'ts' {
  return process.env['BENCH_HARNESS'] === 'ts' ? 'ts' : 'built';
}

/**
 * A harness file (named as in bench/frameworks/, e.g. ./child.ts) as the processes should start it. Used in the parent,
 * which runs from the sources.
 */
export function harnessFile(relative: string): string {
  if (harnessFrom() === 'ts') return fileURLToPath(new URL(relative, import.meta.url));
  return fileURLToPath(new URL(relative.replace(/\.ts$/, '.js'), pathToFileURL(BUILT_HARNESS_DIR)));
}

/** Builds the harness (once per comparison, in the parent process, before any child). */
export async function buildHarness(): Promise<void> {
  if (harnessFrom() === 'ts') return;
  const { build } = await import('esbuild');
  await build({
    entryPoints: ['./child.ts', './http-client.ts', ...RUNNERS.map((r) => r.file)].map((f) =>
      fileURLToPath(new URL(f, import.meta.url)),
    ),
    outbase: HERE,
    outdir: BUILT_HARNESS_DIR,
    bundle: true,
    // No shared chunks: each entry keeps its module's import.meta.url where its source sits.
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
  });
}
