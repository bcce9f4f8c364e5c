/**
 * Checkpoints of the SQLite write-ahead log, moved off the event loop.
 *
 * By default SQLite checkpoints inside the commit that takes the WAL past
 * 1,000 pages: that one COMMIT copies the pages into the database file and
 * syncs it, a few milliseconds during which a toolgate process answers nothing
 * (about half of all the time spent committing, by measure, on a sequential
 * run load). Here the store's connection does no automatic checkpoints; every
 * CHECKPOINT_EVERY_COMMITS commits it nudges a worker thread, which holds a
 * connection of its own to the same file and runs a PASSIVE checkpoint: it
 * copies what the WAL holds while the store keeps writing, and never blocks a
 * writer. Durability is unchanged: the WAL stays the truth until its pages are
 * in the database file and synced, which is what any checkpoint does.
 *
 * A checkpoint that runs beside writers cannot finish the WAL (commits land
 * while it copies), and SQLite starts the WAL again from its beginning only
 * once every page is copied. So when the WAL has grown past CATCH_UP_FRAMES,
 * the store's own connection checkpoints the few pages left between two of its
 * commits; the next commit then starts the WAL over, which keeps the file
 * bounded under a load that never pauses.
 *
 * The worker is started at the first nudge, so a short-lived process never
 * pays for it, and does not keep the process alive. If it cannot start or
 * fails, the connection goes back to SQLite's automatic checkpoints.
 */
import { describeError } from '../../core/index.ts';
import type { Worker } from 'node:worker_threads';

/** Commits between two nudges: about SQLite's own 1,000-page threshold at a few pages per commit. */
export const CHECKPOINT_EVERY_COMMITS = 128;
/** WAL frames (pages) past which the store's connection finishes a checkpoint itself. */
export const CATCH_UP_FRAMES = 4_000;

/** What the store's connection does for the checkpointer. */
export interface CheckpointHost {
  /**
   * A PASSIVE checkpoint on the store's connection (between two of its transactions); false when another connection was
   * checkpointing.
   */
  checkpoint(): boolean;
  /** Gives checkpoints back to SQLite: PRAGMA wal_autocheckpoint to its default. */
  restoreAutomatic(): void;
}

type WorkerReport = { type: 'checkpointed'; log: number; checkpointed: number } | { type: 'failed'; message: string };

// Plain CommonJS run with `eval`, so it needs no file of its own next to a bundle.
const WORKER_SOURCE =
  `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const failed = (error) => parentPort.postMessage({ type: ` +
  `'failed', message: String((error && error.message) || error) });
let checkpoint;
let db;
try {
  db = new DatabaseSync(workerData.path);
  db.exec('PRAGMA busy_timeout = 0');
  db.exec('PRAGMA wal_autocheckpoint = 0');
  db.exec('PRAGMA synchronous = ' + workerData.synchronous);
  checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
} catch (error) {
  failed(error);
  parentPort.close();
}
if (checkpoint !== undefined) {
  parentPort.on('message', (message) => {
    if (message === 'close') {
      db.close();
      parentPort.close();
      return;
    }
    try {
      const row = checkpoint.get();
      parentPort.postMessage({ type: 'checkpointed', log: Number(row.log), checkpointed: Number(row.checkpointed) });
    } catch (error) {
      // SQLITE_BUSY: another connection is checkpointing; the next nudge tries again.
      if (error && (error.errcode & 0xff) === 5) ` +
  `parentPort.postMessage({ type: 'checkpointed', log: 0, checkpointed: 0 });
      else failed(error);
    }
  });
}
`;

export interface WalCheckpointerOptions {
  /** The database file. */
  path: string;
  /** The store's synchronous setting, used by the worker's checkpoints too. */
  synchronous: string;
  host: CheckpointHost;
  everyCommits?: number;
  catchUpFrames?: number;
}

/** Counts the store's commits and has a worker thread checkpoint the WAL (see the file's comment). */
export class WalCheckpointer {
  readonly #options: WalCheckpointerOptions;
  readonly #everyCommits: number;
  readonly #catchUpFrames: number;
  #commits = 0;
  /**
   * A nudge the thread has not answered yet: no other is sent meanwhile, so the thread is idle when its report arrives.
   */
  #inFlight = false;
  #worker: Worker | undefined;
  #stopped = false;
  #closing: Promise<void> | undefined;
  /**
   * Checkpoints the worker finished, catch-ups done by the store's connection, and why the thread stopped (for tests).
   */
  readonly stats: { workerCheckpoints: number; catchUps: number; failure: string | undefined } = {
    workerCheckpoints: 0,
    catchUps: 0,
    failure: undefined,
  };

  constructor(options: WalCheckpointerOptions) {
    this.#options = options;
    this.#everyCommits = options.everyCommits ?? CHECKPOINT_EVERY_COMMITS;
    this.#catchUpFrames = options.catchUpFrames ?? CATCH_UP_FRAMES;
  }

  /** Called after every commit of the store's connection. */
  committed(): void {
    if (this.#stopped) return;
    this.#commits += 1;
    if (this.#commits < this.#everyCommits || this.#inFlight) return;
    this.#commits = 0;
    this.#nudge();
  }

  /** Whether checkpoints are still done here (false once the worker failed or the store closed). */
  get active(): boolean {
    return !this.#stopped;
  }

  /** Stops the worker, closing its connection first so the store's close is the last one. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    const timer = setTimeout(() => void worker.terminate(), 2_000);
    await exited;
    clearTimeout(timer);
  }

  #nudge(): void {
    const worker = this.#worker ?? this.#start();
    if (worker === undefined) return;
    this.#inFlight = true;
    worker.postMessage('checkpoint');
  }

  #start(): Worker | undefined {
    try {
      // Loaded here, at the first nudge: a short command that never checkpoints does not load it.
      const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
      const worker = new WorkerThread(WORKER_SOURCE, {
        eval: true,
        workerData: { path: this.#options.path, synchronous: this.#options.synchronous },
        // A checkpoint needs little: keep the thread's heap small.
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      });
      worker.on('message', (report: WorkerReport) => this.#heard(report));
      worker.on('error', (error) => this.#fail(error.message));
      worker.on('exit', (code) => {
        if (!this.#stopped) this.#fail(`the checkpoint thread exited (code ${code})`);
      });
      // After the listeners: adding a 'message' listener refs the worker again, which would keep the process alive.
      worker.unref();
      this.#worker = worker;
      return worker;
    } catch (error) {
      this.#fail(describeError(error));
      return undefined;
    }
  }

  #heard(report: WorkerReport): void {
    this.#inFlight = false;
    if (this.#stopped) return;
    if (report.type === 'failed') {
      this.#fail(report.message);
      return;
    }
    this.stats.workerCheckpoints += 1;
    if (report.log >= this.#catchUpFrames) {
      // Busy (another process is checkpointing) or failing: the next report tries again.
      try {
        if (this.#options.host.checkpoint()) this.stats.catchUps += 1;
      } catch {
        // A checkpoint that fails leaves the WAL as it was.
      }
    }
  }

  #fail(message: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.stats.failure = message;
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
    try {
      this.#options.host.restoreAutomatic();
    } catch {
      // The store is closing: nothing left to checkpoint for.
    }
  }
}
