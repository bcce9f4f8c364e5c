import { isAbsolute, resolve } from 'node:path';
import { ToolgateError, type RunStore } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';

export const DEFAULT_STORE = 'sqlite:./data/toolgate.db';

/** `memory:` or `sqlite:<path>` (relative to cwd) → a RunStore. */
export async function openStore(spec: string, options: { cwd?: string; synchronous?: 'FULL' | 'NORMAL' } = {}): Promise<RunStore> {
  if (spec === 'memory:' || spec === 'memory') return new MemoryRunStore();
  if (spec.startsWith('sqlite:')) {
    const raw = spec.slice('sqlite:'.length);
    if (raw === '') throw new ToolgateError('usage', 'the sqlite store needs a file: --store sqlite:./data/toolgate.db');
    const path = raw === ':memory:' || isAbsolute(raw) ? raw : resolve(options.cwd ?? process.cwd(), raw);
    return openSqliteRunStore({ path, ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }) });
  }
  throw new ToolgateError('usage', `unknown store "${spec}": use memory: or sqlite:<file> (e.g. sqlite:./data/toolgate.db)`);
}
