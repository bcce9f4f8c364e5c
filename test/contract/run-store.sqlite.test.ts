import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStore } from '../../src/core/index.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { runStoreContract } from './run-store.contract.ts';

runStoreContract('RunStore contract: SqliteRunStore (file, synchronous FULL)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-'));
  // A missing parent directory: the store creates it.
  const path = join(dir, 'data', 'runs.db');
  const opened: RunStore[] = [];
  const open = async (): Promise<RunStore> => {
    const store = await openSqliteRunStore({ path });
    opened.push(store);
    return store;
  };
  return {
    store: await open(),
    reopen: open,
    cleanup: async () => {
      for (const store of opened) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

runStoreContract('RunStore contract: SqliteRunStore (:memory:)', async () => {
  const store = await openSqliteRunStore({ path: ':memory:' });
  return { store, cleanup: () => store.close() };
});
