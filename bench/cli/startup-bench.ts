// CLI start-up, as users feel it: `toolgate --version`, and `toolgate run` from
// process start to its first model request (a local mock model; no MCP server).
// Measured on the built package (bin + dist, as installed) and on the sources
// (the repository), each against a bare `node -e 0` started in the same run.
// Targets: --version ≤ 50 ms, run ≤ 150 ms to the first model request.
// Run alone: node bench/cli/startup-bench.ts
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startMockOpenAI } from '../../test/support/mock-openai-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = 15;
const VERSION_TARGET_MS = 50;
const RUN_TARGET_MS = 150;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function timeExit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

/** A copy laid out as npm installs it: bin/, dist/, package.json, no sources. */
function installedLayout(work: string): string {
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'cli', 'main.js'))) {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.ts')], { cwd: ROOT, stdio: 'ignore' });
    if (built.status !== 0) throw new Error('npm run build failed');
  }
  const pkg = join(work, 'node_modules', 'toolgate');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(ROOT, 'bin'), join(pkg, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  return join(pkg, 'bin', 'toolgate.js');
}

export async function runStartupBench(): Promise<{ name: string; lines: string[] }> {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-startup-'));
  let firstRequestAt = 0;
  const model = await startMockOpenAI({
    handler: () => {
      firstRequestAt = performance.now();
      return { text: 'ok' };
    },
  });
  try {
    const env = { ...process.env, TOOLGATE_HOME: join(work, 'home'), NO_COLOR: '1' };
    const bins = { installed: installedLayout(work), repository: join(ROOT, 'bin', 'toolgate.js') };
    const runArgs = (bin: string, store: string[]) => [
      bin,
      'run',
      'hello',
      '--model',
      'openai:bench',
      '--base-url',
      model.url,
      '--api-key',
      'bench-key',
      ...store,
    ];
    const timeToRequest = async (args: string[]): Promise<number> => {
      firstRequestAt = 0;
      const started = performance.now();
      await timeExit(args, env);
      return firstRequestAt === 0 ? Number.NaN : firstRequestAt - started;
    };

    const samples: Record<string, number[]> = {};
    const add = (key: string, value: number) => (samples[key] ??= []).push(value);
    for (let round = 0; round < ROUNDS; round++) {
      add('node', await timeExit(['-e', '0'], env));
      for (const [where, bin] of Object.entries(bins)) {
        add(`${where} version`, await timeExit([bin, '--version'], env));
        add(`${where} help`, await timeExit([bin, 'run', '--help'], env));
        add(`${where} run`, await timeToRequest(runArgs(bin, ['--store', 'memory:'])));
        add(`${where} run sqlite`, await timeToRequest(runArgs(bin, [])));
      }
    }
    const node = median(samples['node'] ?? []);
    const lines = [`bare node -e 0: ${node.toFixed(1)} ms (median of ${ROUNDS}; the baseline below)`];
    for (const where of Object.keys(bins)) {
      const row = (label: string, key: string, target?: number) => {
        const ms = median(samples[`${where} ${key}`] ?? []);
        const over = ms - node;
        const verdict =
          target === undefined
            ? ''
            : over <= target
              ? `  ok (target ≤ ${target} ms over node)`
              : `  OVER target ≤ ${target} ms over node`;
        lines.push(
          `${where.padEnd(10)} ${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms ` +
            ` = node + ${over.toFixed(1)} ms  (×${(ms / node).toFixed(2)})${verdict}`,
        );
      };
      row('toolgate --version', 'version', VERSION_TARGET_MS);
      row('toolgate run --help', 'help');
      row('run → first model request (memory:)', 'run', RUN_TARGET_MS);
      row('run → first model request (SQLite)', 'run sqlite', RUN_TARGET_MS);
    }
    return { name: 'cli start-up', lines };
  } finally {
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runStartupBench();
  console.log(`== ${report.name}`);
  for (const line of report.lines) console.log(`  ${line}`);
}
