import {
  draft,
  isTerminalEvent,
  type EventDraft,
  type ReplayDiff,
  type RunEvent,
  type RunEventType,
  type RunStore,
} from '../../core/index.ts';
import { readAllEvents } from './load-runs.ts';
import type { RecordedRun } from './recorded-run.ts';

/**
 * Stores a replay as a new run of `store` (the original's store): created with `metadata.replayOf` and `replay: true`,
 * then its events in order in one append, with replay_compared before its terminal event (the console shows the diff
 * from there). The original run is not touched. Resolves with the stored run and its log.
 */
export async function saveReplay(options: {
  store: RunStore;
  replay: RecordedRun;
  diff: ReplayDiff;
}): Promise<RecordedRun> {
  const { store, replay, diff } = options;
  const source = replay.run;
  const created = await store.createRun({
    input: source.input,
    model: source.model,
    metadata: { ...source.metadata, replayOf: diff.of, replay: true },
    ...(source.tenantId === undefined ? {} : { tenantId: source.tenantId }),
    ...(source.userId === undefined ? {} : { userId: source.userId }),
    ...(source.context === undefined ? {} : { context: source.context }),
    ...(source.dryRun === true ? { dryRun: true } : {}),
    ...(source.settings === undefined ? {} : { settings: source.settings }),
  });
  const drafts: EventDraft[] = replay.events.map(copyOf);
  const compared = draft('replay_compared', { of: diff.of, diff });
  const last = drafts.at(-1);
  if (last !== undefined && isTerminalEvent(last)) drafts.splice(drafts.length - 1, 0, compared);
  else drafts.push(compared);
  await store.append(created.id, drafts, {
    status: source.status,
    usage: source.usage,
    steps: source.steps,
    ...(source.output === undefined ? {} : { output: source.output }),
    ...(source.error === undefined ? {} : { error: source.error }),
  });
  const run = await store.getRun(created.id);
  return { run: run ?? created, events: await readAllEvents(store, created.id) };
}

function copyOf<K extends RunEventType>(event: RunEvent<K>): EventDraft<K> {
  return draft(event.type, event.data);
}
