// What the scale benchmark's children share: toolgate (from the sources) with
// two tools defined in code — `lookup` (reads, runs at once) and `place_order`
// (changes state: it waits for a person's approval, toolgate's default for a
// write) — pointed at the mock model as an OpenAI-compatible endpoint, on the
// memory store or a SQLite file in a temporary folder; and, for the server
// path, a RunManager with the approvals runtime a server starts (an approval
// timeout configured, so that its deadlines are kept for every waiting call).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalsRuntime } from '../../src/app/approvals/approvals-runtime.ts';
import { RunManager, createToolgate, defineTool, openStore, type Run, type Toolgate } from '../../src/index.ts';

export type StoreKind = 'memory' | 'sqlite';
export type PathKind = 'library' | 'manager';

/**
 * How often the approvals runtime scans the store here (30 s by default): often enough that every idle window of the
 * benchmark (5 s) holds a scan, so that what a scan costs with thousands of calls waiting is measured.
 */
export const BENCH_RESCAN_MS = 5000;

/** An approval timeout far beyond the measurement: kept as a deadline for every waiting call, never reached. */
export const APPROVAL_TIMEOUT_MS = 3_600_000;

const KEY_SCHEMA = {
  type: 'object',
  properties: { key: { type: 'string' } },
  required: ['key'],
  additionalProperties: false,
} as const;

function tools() {
  return [
    defineTool({
      name: 'lookup',
      description: 'Looks a key up',
      inputSchema: KEY_SCHEMA,
      effect: 'read',
      execute: (args: { key?: unknown }) => `value of ${String(args.key)}`,
    }),
    defineTool({
      name: 'place_order',
      description: 'Places an order for a key',
      inputSchema: KEY_SCHEMA,
      effect: 'write',
      execute: (args: { key?: unknown }) => `ordered ${String(args.key)}`,
    }),
  ];
}

export interface ScaleSetup {
  toolgate: Toolgate;
  /** The server path only. */
  manager: RunManager | undefined;
  approvals: ApprovalsRuntime | undefined;
  /** Resolves when the run reaches one of `statuses` (manager path: as its events are appended). */
  settled: (runId: string) => Promise<Run>;
  /** Starts a run: the library drives it to its end or its wait; the manager answers at once. */
  start: (input: string) => Promise<Run>;
  close: () => Promise<void>;
}

/** The run's status once it stops moving: ended, or waiting for a person. */
const RESTING = new Set(['completed', 'failed', 'cancelled', 'waiting_approval', 'escalated']);

export async function openScaleSetup(options: {
  url: string;
  store: StoreKind;
  path: PathKind;
  concurrency: number;
  /** Which tool the runs are offered first (the mock calls the first one offered). */
  tool: 'lookup' | 'place_order';
}): Promise<ScaleSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-scale-'));
  const opened = await openStore(options.store === 'memory' ? 'memory:' : `sqlite:${join(dir, 'runs.db')}`);
  const approvals =
    options.path === 'manager' ? new ApprovalsRuntime({ config: { timeoutMs: APPROVAL_TIMEOUT_MS } }) : undefined;
  const store = approvals === undefined ? opened : approvals.watch(opened);
  const all = tools();
  const toolgate = await createToolgate({
    model: 'openai:mock',
    providers: { openai: { baseUrl: options.url, apiKey: 'sk-scale' } },
    tools: options.tool === 'lookup' ? all : [...all].reverse(),
    store,
    stream: false,
  });
  const waiters = new Map<string, (run: Run) => void>();
  const resting = (runId: string): void => {
    const waiter = waiters.get(runId);
    if (waiter === undefined) return;
    void toolgate.store.getRun(runId).then((run) => {
      if (run === undefined || !RESTING.has(run.status)) return;
      waiters.delete(runId);
      waiter(run);
    });
  };
  let manager: RunManager | undefined;
  if (options.path === 'manager') {
    manager = new RunManager({
      toolgate,
      concurrency: options.concurrency,
      queueLimit: 1_000_000,
      queueLimitPerTenant: 1_000_000,
      onEvents: (events) => {
        for (const event of events) {
          const type = event.type;
          if (type === 'approval_required' || type === 'run_completed' || type === 'run_failed') resting(event.runId);
        }
      },
    });
    await manager.recover();
    const started = manager;
    await approvals?.start({
      store: toolgate.store,
      serverUrl: () => 'http://127.0.0.1:0',
      decide: (runId, input) => started.submitInput({}, runId, input),
      log: () => undefined,
      rescanMs: BENCH_RESCAN_MS,
    });
  }
  const service = manager;
  return {
    toolgate,
    manager,
    approvals,
    settled: (runId) =>
      new Promise<Run>((resolve) => {
        waiters.set(runId, resolve);
        resting(runId);
      }),
    start: async (input) =>
      service === undefined ? toolgate.run({ input }) : (await service.startRun({}, { input })).run,
    close: async () => {
      await approvals?.close();
      await manager?.shutdown({ graceMs: 100 });
      await toolgate.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
