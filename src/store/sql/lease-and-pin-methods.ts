import type { ClaimOptions, Run, RunLease, ToolPin } from '../../core/index.ts';

/** A store's lease operations: SQLite's run synchronously in one transaction, PostgreSQL's are one statement each. */
export interface LeaseOperations {
  claimRun(runId: string, options: ClaimOptions): RunLease | undefined | Promise<RunLease | undefined>;
  claimNext(options: ClaimOptions & { limit: number }): RunLease[] | Promise<RunLease[]>;
  renewLease(lease: RunLease, ttlMs: number): RunLease | undefined | Promise<RunLease | undefined>;
  releaseRun(lease: RunLease): Run | undefined | Promise<Run | undefined>;
}

export interface ToolPinOperations {
  list(): ToolPin[] | Promise<ToolPin[]>;
  pinIfNew(pin: ToolPin): ToolPin | Promise<ToolPin>;
  replace(pin: ToolPin): void | Promise<void>;
}

/** The RunStore methods an SQL store hands on, as they are, to its lease and tool-pin parts. */
export abstract class LeaseAndPinMethods {
  readonly #leases: LeaseOperations;
  readonly #pins: ToolPinOperations;

  protected constructor(parts: { leases: LeaseOperations; pins: ToolPinOperations }) {
    this.#leases = parts.leases;
    this.#pins = parts.pins;
  }

  async claimRun(runId: string, options: ClaimOptions): Promise<RunLease | undefined> {
    return this.#leases.claimRun(runId, options);
  }

  async claimNext(options: ClaimOptions & { limit: number }): Promise<RunLease[]> {
    return this.#leases.claimNext(options);
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<RunLease | undefined> {
    return this.#leases.renewLease(lease, ttlMs);
  }

  async releaseRun(lease: RunLease): Promise<Run | undefined> {
    return this.#leases.releaseRun(lease);
  }

  async listToolPins(): Promise<ToolPin[]> {
    return this.#pins.list();
  }

  async pinToolIfNew(pin: ToolPin): Promise<ToolPin> {
    return this.#pins.pinIfNew(pin);
  }

  async replaceToolPin(pin: ToolPin): Promise<void> {
    await this.#pins.replace(pin);
  }
}
