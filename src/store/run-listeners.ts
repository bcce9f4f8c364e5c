import { describeError } from '../core/index.ts';
import type { EventListener, RunEvent } from '../core/index.ts';

/**
 * Live subscribers per run, for this process only (a store shared by several processes is not seen). Shared by the
 * stores.
 */
export class RunListeners {
  readonly #byRun = new Map<string, Set<EventListener>>();

  add(runId: string, listener: EventListener): () => void {
    let set = this.#byRun.get(runId);
    if (set === undefined) {
      set = new Set();
      this.#byRun.set(runId, set);
    }
    set.add(listener);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const current = this.#byRun.get(runId);
      current?.delete(listener);
      if (current?.size === 0) this.#byRun.delete(runId);
    };
  }

  /**
   * Hands events to every listener of the run; one listener's failure neither stops the others nor fails the append.
   */
  notify(runId: string, events: RunEvent[]): void {
    const set = this.#byRun.get(runId);
    if (set === undefined || events.length === 0) return;
    for (const listener of [...set]) {
      // A listener removed by an earlier one in this round no longer wants events.
      if (!set.has(listener)) continue;
      try {
        listener(events);
      } catch (error) {
        process.emitWarning(`a run event listener threw: ${describeError(error)}`, 'ToolgateWarning');
      }
    }
  }

  clear(): void {
    this.#byRun.clear();
  }
}
