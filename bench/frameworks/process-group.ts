// A group of children measured together (compare.ts): every runner with the
// fetch baseline, and each toolgate runner with the loop written on undici as
// well, all alive at once, their measured runs split into blocks taken in turn.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ChildFailure } from './child.ts';
import { harnessFile } from './harness-build.ts';
import type { ChildOutcome } from './processes.ts';
import type { Workload } from './workload.ts';

const CHILD = harnessFile('./child.ts');

/** One child of a group, as runGroup sees it. */
export interface GroupMember {
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

function controlled(member: GroupMember, options: { url: string; workload: Workload; blocks: number }): Controlled {
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
  const reader = createInterface({ input: child.stdout });
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

/** What a line from a grouped child says: a step of the protocol, its outcome, or nothing readable. */
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
 * The order the members take block `block` in: rotated by one from each block to the next (0 1 2, 1 2 0, 2 0 1, …;
 * for two: 0 1, 1 0), so that over a multiple of the group's size each member takes each place equally often.
 */
export function blockOrder(size: number, block: number): number[] {
  return Array.from({ length: size }, (_, i) => (i + block) % size);
}

/**
 * How many blocks a group measures a workload's runs in: sequential runs in blocks of about 25 (a tenth of a second
 * or so; at most 8 blocks), runs in flight in blocks of 100 (two waves of 50 each); then rounded up to a multiple of
 * the group's size, so that every member is first equally often, when each block still holds at least 5 sequential
 * runs, or two waves of runs in flight.
 */
export function blocksFor(workload: Workload, size: number): number {
  const base =
    workload.concurrency > 1
      ? Math.max(1, Math.round(workload.runs / 100))
      : Math.max(1, Math.min(8, Math.round(workload.runs / 25)));
  const rounded = Math.ceil(base / size) * size;
  const least = workload.concurrency > 1 ? 2 * workload.concurrency : 5;
  return workload.runs / rounded >= least ? rounded : base;
}

/** What runGroup gives back: each member's outcome, in the members' order, and the order the blocks were taken in. */
export interface GroupOutcome {
  outcomes: ChildOutcome[];
  /** Per block, the members' indices in the order their block ended, e.g. "012 120 201". */
  taken: string;
  /** When the group failed: the index of the member that went wrong (the others' outcomes say their group failed). */
  failed?: number;
}

/**
 * Runs several runners on one workload side by side, each in its own process, and measures them in blocks of runs
 * taken in turn (blockOrder) while the others wait: a slow or fast moment of a shared machine falls on all of them,
 * which one run after the other does not give. Each outcome is as runChild's; a failure of one fails all (a ratio
 * needs the group).
 */
export async function runGroup(options: {
  members: GroupMember[];
  url: string;
  workload: Workload;
  blocks: number;
  timeoutMs: number;
}): Promise<GroupOutcome> {
  const { workload, members } = options;
  const children: Controlled[] = [];
  const taken: string[] = [];
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
  /** All fail: the one that went wrong says why (`own`, else its stderr), the others that their group failed. */
  const allFail = (index: number, what: string, own?: ChildFailure): GroupOutcome => {
    for (const c of children) c.kill();
    const said = (children[index]?.stderr() ?? '').trim().split('\n').slice(-5).join(' | ');
    const error = timedOut
      ? `timed out after ${Math.round(options.timeoutMs / 1000)} s`
      : `${what}${said === '' ? '' : `: ${said}`}`;
    const culprit = members[index]?.runner ?? '';
    const outcomes = members.map((_, i) =>
      i === index ? (own ?? failure(i, error)) : failure(i, `its group's ${culprit} failed`),
    );
    return { outcomes, taken: taken.join(' '), failed: index };
  };
  try {
    // One after the other: each starts and warms up while the ones before it wait, so that no start-up is charged to
    // another.
    for (const [index, member] of members.entries()) {
      const child = controlled(member, { url: options.url, workload, blocks: options.blocks });
      children.push(child);
      const said = readLine(await child.next());
      if (said !== undefined && 'ok' in said && !said.ok) return allFail(index, said.error, said);
      if (said === undefined || !('ready' in said)) return allFail(index, 'did not say it was ready');
    }
    for (let block = 0; block < options.blocks; block++) {
      let places = '';
      for (const index of blockOrder(members.length, block)) {
        const child = children[index];
        if (child === undefined) continue;
        child.send('go');
        const said = readLine(await child.next());
        if (said !== undefined && 'ok' in said && !said.ok) return allFail(index, said.error);
        if (said === undefined || !('block' in said) || said.block !== block)
          return allFail(index, `did not finish block ${block + 1} of ${options.blocks}`);
        places += String(index);
      }
      taken.push(places);
    }
    const outcomes: ChildOutcome[] = [];
    for (const [index, child] of children.entries()) {
      const said = readLine(await child.next());
      if (said === undefined || !('ok' in said)) return allFail(index, 'exited without a result');
      outcomes.push(said);
    }
    await Promise.all(children.map((c) => c.closed()));
    return { outcomes, taken: taken.join(' ') };
  } finally {
    clearTimeout(timer);
    for (const c of children) c.kill();
  }
}
