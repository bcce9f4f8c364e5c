// The processes of the comparison: the mock model server (one for the whole
// comparison) and one child per runner and workload.
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

/** One child of a pair, as runPair sees it. */
export interface PairMember {
  runner: string;
  env?: Record<string, string>;
}

interface Controlled {
  /** The next line the child printed; undefined once its output has ended. */
  next(): Promise<string | undefined>;
  send(line: string): void;
  kill(): void;
  stderr(): string;
  closed(): Promise<number | null>;
}

function controlled(member: PairMember, options: { url: string; workload: Workload; blocks: number }): Controlled {
  const env = member.env === undefined ? process.env : { ...process.env, ...member.env };
  const args = [
    CHILD,
    '--runner',
    member.runner,
    '--url',
    options.url,
    '--workload',
    JSON.stringify(options.workload),
    '--blocks',
    String(options.blocks),
  ];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on('line', (line) => {
    const waiter = waiting;
    waiting = undefined;
    if (waiter === undefined) lines.push(line);
    else waiter(line);
  });
  reader.on('close', () => {
    ended = true;
    const waiter = waiting;
    waiting = undefined;
    waiter?.(undefined);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4000)));
  // A child that dies leaves its stdin closed: writing to it must not throw here.
  child.stdin.on('error', () => undefined);
  const closed = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
  return {
    next: () => {
      if (lines.length > 0) return Promise.resolve(lines.shift());
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => (waiting = resolve));
    },
    send: (line) => {
      child.stdin.write(`${line}\n`);
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    stderr: () => stderr,
    closed: () => closed,
  };
}

/** What a line from a paired child says: a step of the protocol, its outcome, or nothing readable. */
function readLine(
  line: string | undefined,
): { ready: true } | { block: number; wallMs: number } | ChildOutcome | undefined {
  if (line === undefined) return undefined;
  try {
    const parsed = JSON.parse(line) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as { ready: true }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs two runners on one workload side by side, each in its own process, and
 * measures them in alternating blocks of runs (first, second; second, first;
 * …) while the other waits: a slow or fast moment of a shared machine falls on
 * both, which one run after the other does not give. Each outcome is as
 * runChild's; a failure of either fails both (a ratio needs the pair).
 */
export async function runPair(options: {
  first: PairMember;
  second: PairMember;
  url: string;
  workload: Workload;
  blocks: number;
  timeoutMs: number;
}): Promise<[ChildOutcome, ChildOutcome]> {
  const { workload } = options;
  const members = [options.first, options.second] as const;
  const children: Controlled[] = [];
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    for (const c of children) c.kill();
  }, options.timeoutMs);
  const failure = (index: number, error: string): ChildFailure => ({
    ok: false,
    runner: members[index]?.runner ?? '',
    workload: workload.id,
    error,
  });
  /** Both fail: the one that went wrong says why, the other that its pair failed. */
  const bothFail = async (index: number, what: string): Promise<[ChildOutcome, ChildOutcome]> => {
    for (const c of children) c.kill();
    const said = (children[index]?.stderr() ?? '').trim().split('\n').slice(-5).join(' | ');
    const error = timedOut
      ? `timed out after ${Math.round(options.timeoutMs / 1000)} s`
      : `${what}${said === '' ? '' : `: ${said}`}`;
    const own = failure(index, error);
    const other = failure(1 - index, `its pair (${members[index]?.runner ?? ''}) failed`);
    return index === 0 ? [own, other] : [other, own];
  };
  try {
    // One after the other: the second starts and warms up while the first waits, so neither's start-up is charged to
    // the other.
    for (const [index, member] of members.entries()) {
      const child = controlled(member, { url: options.url, workload, blocks: options.blocks });
      children.push(child);
      const said = readLine(await child.next());
      if (said !== undefined && 'ok' in said && !said.ok)
        return index === 0
          ? [said, failure(1, `its pair (${members[0].runner}) failed`)]
          : [failure(0, `its pair (${members[1].runner}) failed`), said];
      if (said === undefined || !('ready' in said)) return bothFail(index, 'did not say it was ready');
    }
    for (let block = 0; block < options.blocks; block++) {
      // first, second; second, first; … : a drift within a block pair weighs on both.
      const order = block % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const child = children[index] as Controlled;
        child.send('go');
        const said = readLine(await child.next());
        if (said !== undefined && 'ok' in said && !said.ok) return bothFail(index, said.error);
        if (said === undefined || !('block' in said))
          return bothFail(index, `did not finish block ${block + 1} of ${options.blocks}`);
      }
    }
    const outcomes: ChildOutcome[] = [];
    for (const [index, child] of children.entries()) {
      const said = readLine(await child.next());
      if (said === undefined || !('ok' in said)) return bothFail(index, 'exited without a result');
      outcomes.push(said);
    }
    await Promise.all(children.map((c) => c.closed()));
    return [outcomes[0] as ChildOutcome, outcomes[1] as ChildOutcome];
  } finally {
    clearTimeout(timer);
    for (const c of children) c.kill();
  }
}
