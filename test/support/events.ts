import type { RunEvent } from '../../src/core/index.ts';

/** The events of one type from a run's log, typed. */
export function ofType<T extends RunEvent['type']>(
  events: readonly RunEvent[],
  type: T,
): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** toolgate's id for the call a model sent with `providerId` (toolgate gives every call its own id). */
export function callIdOf(events: readonly RunEvent[], providerId: string): string {
  for (const event of events) {
    if (event.type !== 'assistant_message') continue;
    const call = (event.data.calls ?? []).find((c) => c.providerId === providerId);
    if (call !== undefined) return call.id;
  }
  throw new Error(`no call with the model's id "${providerId}" in the log`);
}
