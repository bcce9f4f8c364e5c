// The processes of the comparison: the mock model server (one for the whole
// comparison) and a child run alone (runChild); children measured together are
// process-group.ts's.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ChildFailure, ChildResult } from './child.ts';
import { harnessFile } from './harness-build.ts';
import type { Workload } from './workload.ts';

const MOCK = fileURLToPath(new URL('./mock-model-server.ts', import.meta.url));
const CHILD = harnessFile('./child.ts');

export interface MockProcess {
  url: string;
  close(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts the mock in its own process; it exits when we close it, or when our end of its stdin closes. */
export async function startMockProcess(): Promise<MockProcess> {
  const child = spawn(process.execPath, [MOCK, '--exit-on-stdin-end'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`the mock model server exited (${String(code)}) before printing its URL`)),
    );
    lines.once('line', (line) => resolve(line.trim()));
  });
  child.removeAllListeners('exit');
  return {
    url,
    close: async () => {
      child.stdin?.end();
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

export type ChildOutcome = ChildResult | ChildFailure;

/**
 * Runs one runner for one workload in a new process (`env` added to ours); a crash, a timeout or unreadable output is a
 * failure, never a throw.
 */
export async function runChild(options: {
  runner: string;
  url: string;
  workload: Workload;
  timeoutMs: number;
  env?: Record<string, string>;
}): Promise<ChildOutcome> {
  const { runner, workload } = options;
  const env = options.env === undefined ? process.env : { ...process.env, ...options.env };
  const child = spawn(
    process.execPath,
    [CHILD, '--runner', runner, '--url', options.url, '--workload', JSON.stringify(workload)],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4000)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (c) => resolve(c));
  });
  clearTimeout(timer);
  const failure = (error: string): ChildFailure => ({ ok: false, runner, workload: workload.id, error });
  if (timedOut) return failure(`timed out after ${Math.round(options.timeoutMs / 1000)} s`);
  const last = stdout.trim().split('\n').pop() ?? '';
  try {
    const parsed = JSON.parse(last) as ChildOutcome;
    if (typeof parsed === 'object' && parsed !== null && 'ok' in parsed) return parsed;
  } catch {
    // Reported below with what the process said.
  }
  const said = (stderr.trim() || stdout.trim()).split('\n').slice(-5).join(' | ');
  return failure(`exited with code ${String(code)} without a result${said === '' ? '' : `: ${said}`}`);
}
