// The scale benchmark's processes: the mock model (mock-model.ts) and the
// children that measure (waiting-child.ts, latency-child.ts), built to
// JavaScript first so that Node's type stripping (about 17 MB and some CPU per
// process) is not charged to toolgate. BENCH_HARNESS=ts runs the sources.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** Under the repository's root, so that the children resolve toolgate's own packages. */
const BUILT_DIR = fileURLToPath(new URL('../../.tmp/bench-scale/', import.meta.url));
const CHILDREN = ['waiting-child', 'latency-child'] as const;
export type ChildName = (typeof CHILDREN)[number];

function fromSources(): boolean {
  return process.env['BENCH_HARNESS'] === 'ts';
}

/** Bundles the children with toolgate's sources into .tmp/bench-scale/ (packages stay external). */
export async function buildChildren(): Promise<void> {
  if (fromSources()) return;
  const { build } = await import('esbuild');
  await build({
    entryPoints: CHILDREN.map((name) => `${HERE}${name}.ts`),
    outdir: BUILT_DIR,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
  });
}

export interface MockModel {
  url: string;
  close(): void;
}

/** `keepAliveMs`: how long the mock keeps an idle connection (its default, 2 s, suits the census of waiting runs). */
export async function startMockModel(options: { keepAliveMs?: number } = {}): Promise<MockModel> {
  const args = options.keepAliveMs === undefined ? [] : ['--keep-alive-ms', String(options.keepAliveMs)];
  const child = spawn(process.execPath, [`${HERE}mock-model.ts`, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the mock model exited (${String(code)}) before it was ready`)));
    lines.once('line', resolve);
  });
  child.removeAllListeners('exit');
  return { url, close: () => void child.stdin.end() };
}

/**
 * Runs a child to its end; resolves with the JSON lines it printed (rows of the shape it prints), rejects with its
 * stderr when it fails.
 */
export async function runChild<Row>(name: ChildName, args: string[]): Promise<Row[]> {
  const file = fromSources() ? `${HERE}${name}.ts` : `${BUILT_DIR}${name}.js`;
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', file, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rows: Row[] = [];
  let stderr = '';
  child.stderr?.on('data', (part: Buffer) => (stderr += part.toString('utf8')));
  const lines = createInterface({ input: child.stdout ?? process.stdin });
  lines.on('line', (line) => {
    // The child's own rows, in the shape its caller names.
    if (line.startsWith('{')) rows.push(JSON.parse(line));
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`${name} ${args.join(' ')} exited ${String(code)}: ${stderr.trim().slice(-2000)}`);
  return rows;
}
