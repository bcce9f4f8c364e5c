import type { RunStore } from '../../src/core/index.ts';
import { runStoreContract } from './run-store.contract.ts';
import { dropSchema, openTestStore, randomSchema, whenPostgres } from './postgres-harness.ts';

await whenPostgres('RunStore contract: PostgresRunStore', () => {
  runStoreContract('RunStore contract: PostgresRunStore (a fresh schema per test)', async () => {
    const schema = randomSchema();
    const opened: RunStore[] = [];
    const open = async (): Promise<RunStore> => {
      const store = await openTestStore(schema);
      opened.push(store);
      return store;
    };
    return {
      store: await open(),
      // The same schema again: the durability tests read what the closed store wrote.
      reopen: open,
      cleanup: async () => {
        for (const store of opened) await store.close();
        await dropSchema(schema);
      },
    };
  });
});
