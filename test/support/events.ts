import type { RunEvent } from '../../src/core/index.ts';

/** The events of one type from a run's log, typed. */
export function ofType<T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}
