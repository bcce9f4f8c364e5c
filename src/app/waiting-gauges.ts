import { Gauge, type Registry } from 'prom-client';
import type { RunStore } from '../core/index.ts';

/** Pages of waiting runs read per scrape (200 each). */
const MAX_WAITING_PAGES = 25;
/** A scrape's gauges share one read of the waiting runs. */
const WAITING_READ_REUSE_MS = 500;

interface WaitingCount {
  count: number;
  oldestSeconds: number;
}

/** The runs waiting for a person, as one scrape read them. */
type WaitingRuns = Record<'approval' | 'escalated', WaitingCount>;

/**
 * The gauges read from the store at scrape time: runs waiting for a person
 * (how many, how long the oldest has waited) and whether the store could be read.
 */
export function registerWaitingGauges(options: { store: Pick<RunStore, 'listRuns'>; registers: Registry[] }): void {
  const { registers } = options;
  let last: { at: number; read: Promise<WaitingRuns | undefined> } | undefined;
  // One read per scrape, undefined when the store cannot be read: /metrics still answers while the database is gone —
  // that is when it is looked at.
  const waitingNow = (): Promise<WaitingRuns | undefined> => {
    const now = Date.now();
    if (last === undefined || now - last.at > WAITING_READ_REUSE_MS) {
      const read = Promise.all([
        countWaiting(options.store, 'waiting_approval'),
        countWaiting(options.store, 'escalated'),
      ]).then(
        ([approval, escalated]) => ({ approval, escalated }),
        () => undefined,
      );
      last = { at: now, read };
    }
    return last.read;
  };
  const byReason = (metric: { name: string; help: string; value: (waiting: WaitingCount) => number }): void => {
    const gauge: Gauge<'reason'> = new Gauge({
      name: metric.name,
      help: metric.help,
      labelNames: ['reason'],
      registers,
      collect: async () => {
        const now = await waitingNow();
        // The store cannot be read: no value rather than a stale one (toolgate_store_up says why).
        if (now === undefined) return gauge.reset();
        gauge.set({ reason: 'approval' }, metric.value(now.approval));
        gauge.set({ reason: 'escalated' }, metric.value(now.escalated));
      },
    });
  };
  byReason({
    name: 'toolgate_runs_waiting',
    help: 'Runs waiting for a person, by why (approval, escalated)',
    value: (waiting) => waiting.count,
  });
  byReason({
    name: 'toolgate_runs_waiting_oldest_seconds',
    help: 'How long the oldest waiting run has waited, by why',
    value: (waiting) => waiting.oldestSeconds,
  });
  const storeUp: Gauge = new Gauge({
    name: 'toolgate_store_up',
    help:
      'Whether this scrape could read the run store (1) or not (0: ' +
      'the database is unreachable or refuses reads; runs wait for it)',
    registers,
    collect: async () => {
      storeUp.set((await waitingNow()) === undefined ? 0 : 1);
    },
  });
}

async function countWaiting(
  store: Pick<RunStore, 'listRuns'>,
  status: 'waiting_approval' | 'escalated',
): Promise<WaitingCount> {
  let count = 0;
  let oldest: number | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_WAITING_PAGES; page++) {
    const result = await store.listRuns({ status, limit: 200, ...(cursor === undefined ? {} : { cursor }) });
    count += result.runs.length;
    for (const run of result.runs) {
      const since = Date.parse(run.updatedAt);
      if (Number.isFinite(since)) oldest = oldest === undefined ? since : Math.min(oldest, since);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return { count, oldestSeconds: oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000) };
}
