import type { Run, RunLease, RunSettings, RunStore } from '../core/index.ts';
import type { RunEnvironment } from './state/run-options.ts';

export interface RunEngineOptions {
  store: RunStore;
  /** This engine's owner id: unique across the processes that share the store. */
  owner: string;
  leaseMs?: number;
  /** The adapters and process configuration a run is driven with (its model is chosen by `run.model`). */
  environment: (run: Run) => Promise<RunEnvironment>;
  /** Settings for runs stored before runs kept their own. */
  fallbackSettings: RunSettings;
  /**
   * Runs another component writes (the app wires in gateway sessions): this engine never drives them, only ends them
   * once their writer is gone.
   */
  ownedElsewhere?: OwnedElsewhere | undefined;
}

/**
 * Runs in the store that this engine does not drive: another component holds
 * their lease while it writes them. Holding such a run's lease here means
 * that writer went away; `recover` ends the run as it would want, and the
 * engine then releases the lease.
 */
export interface OwnedElsewhere {
  matches(run: Run): boolean;
  recover(options: RecoverOptions): Promise<void>;
}

/** A run owned elsewhere whose lease this engine holds: its writer is gone. */
export interface RecoverOptions {
  store: RunStore;
  run: Run;
  lease: RunLease;
  leaseMs: number;
}

export interface DriveOptions {
  /** Aborting it cancels the run (as a cancel request would). */
  signal?: AbortSignal | undefined;
  /** Shutdown: stop at the next safe point without ending the run; its log says where it is. */
  stopSignal?: AbortSignal | undefined;
  /** A lease already claimed for this run (claimNext, startClaimed). */
  lease?: RunLease | undefined;
  /**
   * With `lease`: the run as startClaimed returned it. The first pass starts
   * from it instead of reading the run again, and, when its log was empty,
   * without reading the log: whatever another writer appended since is found
   * by the pass's first commit, which expects the log as it was (the pass is
   * then driven again from the log).
   */
  run?: Run | undefined;
}
