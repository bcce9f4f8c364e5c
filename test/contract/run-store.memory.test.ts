import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { runStoreContract } from './run-store.contract.ts';

runStoreContract('RunStore contract: MemoryRunStore', async () => {
  const store = new MemoryRunStore();
  return { store, cleanup: () => store.close() };
});
