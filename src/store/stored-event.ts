import { ToolgateError, copyAsJson, type EventDraft, type RunEvent, type RunEventType } from '../core/index.ts';
import { isRunEvent, type EventFields } from './stored-values.ts';

/** Where a batch of drafts lands: its run, the id of its first event and the time every event is stamped with. */
export interface EventStamp {
  runId: string;
  first: number;
  time: string;
}

/**
 * The events an append hands back: numbered, stamped, and each a copy as the
 * stored text reads back (copyAsJson: the JSON round trip without the parse),
 * so callers and listeners may change what they get.
 */
export function stampEvents(drafts: readonly EventDraft[], at: EventStamp): RunEvent[] {
  return drafts.map((draft, i) => stampEvent(draft, { runId: at.runId, id: at.first + i, time: at.time }));
}

function stampEvent<K extends RunEventType>(
  draft: EventDraft<K>,
  at: { runId: string; id: number; time: string },
): RunEvent<K> {
  return { id: at.id, runId: at.runId, type: draft.type, time: at.time, data: copyAsJson(draft.data) };
}

/** An event as a store read it back, once its type and data are checked (see isRunEvent). */
export function readBackEvent(fields: EventFields): RunEvent {
  if (isRunEvent(fields)) return fields;
  throw new ToolgateError(
    'internal',
    `event ${fields.id} of run ${fields.runId} has type "${fields.type}" or data this ` +
      `version cannot read; was the store written by a newer toolgate or another program?`,
  );
}
