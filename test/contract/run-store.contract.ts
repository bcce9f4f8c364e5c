// The behaviour every RunStore must show, run against each implementation
// (memory, SQLite, PostgreSQL) by a small *.test.ts that supplies a factory.
import { describe } from 'node:test';
import { createRunContract } from './run-store/create-run.ts';
import { durabilityContract } from './run-store/durability.ts';
import { escapedKeysContract } from './run-store/escaped-keys.ts';
import { appendContract } from './run-store/append.ts';
import type { RunStoreFactory } from './run-store/harness.ts';
import { idempotencyContract } from './run-store/idempotency.ts';
import { importRunContract } from './run-store/import-run.ts';
import { isolationContract } from './run-store/isolation.ts';
import { leasesContract } from './run-store/leases.ts';
import { limitsContract } from './run-store/limits.ts';
import { listRunsContract } from './run-store/list-runs.ts';
import { retentionContract } from './run-store/retention.ts';
import { subscribeContract } from './run-store/subscribe.ts';
import { terminalContract } from './run-store/terminal.ts';
import { threadsContract } from './run-store/threads.ts';
import { toolPinsContract } from './run-store/tool-pins.ts';
import { watchContract } from './run-store/watch.ts';

export type { RunStoreFactory, RunStoreHarness } from './run-store/harness.ts';

/**
 * Defines `describe(name)` with the RunStore contract. `factory` returns a fresh,
 * empty store per test; when it also returns `reopen`, the tests that close the
 * store and open the same storage again run too.
 */
export function runStoreContract(name: string, factory: RunStoreFactory): void {
  describe(name, () => {
    createRunContract(factory);
    appendContract(factory);
    terminalContract(factory);
    subscribeContract(factory);
    listRunsContract(factory);
    idempotencyContract(factory);
    threadsContract(factory);
    isolationContract(factory);
    durabilityContract(factory);
    leasesContract(factory);
    watchContract(factory);
    importRunContract(factory);
    escapedKeysContract(factory);
    toolPinsContract(factory);
    limitsContract(factory);
    retentionContract(factory);
  });
}
