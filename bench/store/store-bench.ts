// Events appended per second to one run: SQLite (synchronous FULL and NORMAL)
// against the memory store, single-event appends and batches of 10.
// Run alone: node bench/store/store-bench.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draft, type EventDraft, type RunStore } from '../../src/core/index.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';

/** Each measurement stops at whichever comes first. */
export const DEFAULT_BENCH_MAX_EVENTS = 200_000;
export const DEFAULT_BENCH_MAX_MS = 1_000;
const WARM_UP_APPENDS = 50;
const BATCH_SIZES = [1, 10] as const;

interface Measurement {
  events: number;
  perSecond: number;
}

async function measure(store: RunStore, batchSize: number): Promise<Measurement> {
  const { id } = await store.createRun({ input: 'bench', model: 'bench' });
  // A realistic event: a tool result of a few hundred bytes.
  const batch: EventDraft[] = Array.from({ length: batchSize }, (_, i) =>
    draft('tool_result', {
      step: 1,
      toolCallId: `call_${i}`,
      name: 'quote',
      ok: true,
      content: [{ type: 'text', text: 'price 84.20 EUR/MWh for hours 1-24, volume 10 MW, area DE-LU; '.repeat(4) }],
      latencyMs: 12,
    }),
  );
  for (let i = 0; i < WARM_UP_APPENDS; i += 1) await store.append(id, batch);
  let events = 0;
  const start = performance.now();
  let elapsed = 0;
  while (events < DEFAULT_BENCH_MAX_EVENTS && elapsed < DEFAULT_BENCH_MAX_MS) {
    await store.append(id, batch, { steps: events });
    events += batchSize;
    elapsed = performance.now() - start;
  }
  return { events, perSecond: events / (elapsed / 1000) };
}

function rate(perSecond: number): string {
  return `${Math.round(perSecond).toLocaleString('en-US')}/s`.padStart(12);
}

export async function runStoreBench(): Promise<{ name: string; lines: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-'));
  const lines = ['events appended per second to one run (higher is better; ratio = memory ÷ this store)'];
  try {
    const memory = new MemoryRunStore();
    const baseline = new Map<number, number>();
    const cells: string[] = [];
    for (const size of BATCH_SIZES) {
      const { perSecond } = await measure(memory, size);
      baseline.set(size, perSecond);
      cells.push(`batch ${String(size).padStart(2)}: ${rate(perSecond)}`.padEnd(32));
    }
    await memory.close();
    lines.push(`  memory          ${cells.join('  ')}`.trimEnd());

    for (const synchronous of ['NORMAL', 'FULL'] as const) {
      const store = await openSqliteRunStore({ path: join(dir, `bench-${synchronous}.db`), synchronous });
      const row: string[] = [];
      for (const size of BATCH_SIZES) {
        const { perSecond } = await measure(store, size);
        const ratio = (baseline.get(size) ?? perSecond) / perSecond;
        row.push(`batch ${String(size).padStart(2)}: ${rate(perSecond)} (${ratio.toFixed(1).padStart(6)}x)`);
      }
      await store.close();
      lines.push(`  sqlite ${synchronous.padEnd(8)} ${row.join('  ')}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'store', lines };
}

if (import.meta.main) {
  const { name, lines } = await runStoreBench();
  console.log(`${name}\n${lines.join('\n')}`);
}
