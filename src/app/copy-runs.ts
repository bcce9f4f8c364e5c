import { ToolgateError, TERMINAL_RUN_STATUSES, type RunEvent, type RunStore, describeError } from '../core/index.ts';

const PAGE = 200;

export type CopyOutcome =
  | { kind: 'copied'; runId: string; events: number }
  | { kind: 'skipped'; runId: string }
  | { kind: 'failed'; runId: string; message: string };

export interface CopyReport {
  copied: number;
  skipped: number;
  failed: number;
  events: number;
  /** Copied runs that had not ended. */
  active: number;
}

/**
 * Copies every run of `source` (all tenants), with its whole log, into
 * `target` as it was: ids, numbering, times, settings. A run the target
 * already has is skipped, so a copy that stopped half-way can run again.
 */
export async function copyRuns(options: {
  source: RunStore;
  target: RunStore;
  onRun?: (outcome: CopyOutcome) => void;
}): Promise<CopyReport> {
  const { source, target } = options;
  const importRun = target.importRun?.bind(target);
  if (importRun === undefined)
    throw new ToolgateError('usage', 'this store cannot take copied runs: copy into postgres://… or sqlite:<file>');
  const report: CopyReport = { copied: 0, skipped: 0, failed: 0, events: 0, active: 0 };
  let cursor: string | undefined;
  do {
    const page = await source.listRuns({ limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    for (const run of page.runs) {
      let outcome: CopyOutcome;
      try {
        const events = await readAll(source, run.id);
        const gap = events.findIndex((event, i) => event.id !== i + 1);
        if (gap >= 0)
          throw new ToolgateError(
            'conflict',
            `its log is not numbered 1, 2, 3…: event ${events[gap]?.id ?? '?'} is at position ${gap + 1}`,
          );
        const result = await importRun(run, events);
        outcome =
          result === 'exists'
            ? { kind: 'skipped', runId: run.id }
            : { kind: 'copied', runId: run.id, events: events.length };
      } catch (error) {
        outcome = { kind: 'failed', runId: run.id, message: describeError(error) };
      }
      if (outcome.kind === 'copied') {
        report.copied += 1;
        report.events += outcome.events;
        if (!TERMINAL_RUN_STATUSES.has(run.status)) report.active += 1;
      } else if (outcome.kind === 'skipped') report.skipped += 1;
      else report.failed += 1;
      options.onRun?.(outcome);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return report;
}

async function readAll(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (;;) {
    const page = await store.readEvents(runId, { after: events.at(-1)?.id ?? 0, limit: 1000 });
    events.push(...page);
    if (page.length < 1000) return events;
  }
}
