export interface ServerStatsSnapshot {
  /** Calls that reached a tool handler (after the SDK's argument validation), per tool. */
  received: Record<string, number>;
  /** Calls whose business logic ran, per tool (replays and injected failures do not count). */
  executed: Record<string, number>;
  /** Write calls answered from an earlier execution under the same idempotency key. */
  deduplicated: number;
}

/** Per-process counters, a test aid: they start at zero on every start, even with --state. */
export class ServerStats {
  private readonly received = new Map<string, number>();
  private readonly executed = new Map<string, number>();
  private deduplicated = 0;

  countReceived(tool: string): void {
    this.received.set(tool, (this.received.get(tool) ?? 0) + 1);
  }

  countExecuted(tool: string): void {
    this.executed.set(tool, (this.executed.get(tool) ?? 0) + 1);
  }

  countDeduplicated(): void {
    this.deduplicated += 1;
  }

  snapshot(): ServerStatsSnapshot {
    return {
      received: Object.fromEntries(this.received),
      executed: Object.fromEntries(this.executed),
      deduplicated: this.deduplicated,
    };
  }
}
