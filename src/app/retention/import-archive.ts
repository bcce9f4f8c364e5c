import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { TERMINAL_RUN_STATUSES, ToolgateError, describeError, isJsonObject, type RunStore } from '../../core/index.ts';
import { eventOf, headerRun, parseLine, type RecordedRun } from '../replay/index.ts';
import type { CopyOutcome, CopyReport } from '../copy-runs.ts';

/** An outcome of one run of the archive; a bad line that belongs to no run is named by its line instead. */
export type ArchiveOutcome = CopyOutcome;

/**
 * Imports the runs of an archive (`toolgate runs prune --archive`, or any `toolgate runs export` file) into `store`,
 * run by run as the file is read: as they were, with their whole logs. A run the store has is skipped. A bad line fails
 * the run it is in (the message names the line and what is wrong); the other runs go on. Gzipped files are recognised
 * by their first bytes.
 */
export async function importArchive(options: {
  store: RunStore;
  path: string;
  onRun?: (outcome: ArchiveOutcome) => void;
}): Promise<CopyReport> {
  const { store, path } = options;
  const importRun = store.importRun?.bind(store);
  if (importRun === undefined)
    throw new ToolgateError('usage', 'this store cannot take copied runs: import into postgres://… or sqlite:<file>');
  const report: CopyReport = { copied: 0, skipped: 0, failed: 0, events: 0, active: 0 };
  const settle = (outcome: ArchiveOutcome): void => {
    if (outcome.kind === 'copied') {
      report.copied += 1;
      report.events += outcome.events;
    } else if (outcome.kind === 'skipped') report.skipped += 1;
    else report.failed += 1;
    options.onRun?.(outcome);
  };
  const finish = async (current: RecordedRun): Promise<void> => {
    try {
      const result = await importRun(current.run, current.events);
      if (result === 'exists') settle({ kind: 'skipped', runId: current.run.id });
      else {
        if (!TERMINAL_RUN_STATUSES.has(current.run.status)) report.active += 1;
        settle({ kind: 'copied', runId: current.run.id, events: current.events.length });
      }
    } catch (error) {
      settle({ kind: 'failed', runId: current.run.id, message: describeError(error) });
    }
  };
  // The run being read; `broken` when a line of it was bad (its other lines are skipped up to the next header).
  let current: RecordedRun | 'broken' | undefined;
  let number = 0;
  for await (const raw of createInterface({ input: await archiveStream(path), crlfDelay: Infinity })) {
    number += 1;
    const line = raw.trim();
    if (line === '') continue;
    const at = `${path}, line ${number}`;
    try {
      const value = parseLine(line, at);
      if (isJsonObject(value) && 'toolgateExport' in value) {
        if (current !== undefined && current !== 'broken') await finish(current);
        // Broken until its header is read: a bad header fails the run, and its events are skipped.
        current = 'broken';
        current = { run: headerRun(value, at), events: [] };
      } else if (current === undefined) {
        current = 'broken';
        throw new ToolgateError('usage', `${at}: an event before any run header`);
      } else if (current !== 'broken') current.events.push(eventOf(value, { at, run: current }));
    } catch (error) {
      const runId = current !== undefined && current !== 'broken' ? current.run.id : `(line ${number})`;
      current = 'broken';
      settle({ kind: 'failed', runId, message: describeError(error) });
    }
  }
  if (current !== undefined && current !== 'broken') await finish(current);
  return report;
}

/** The file as text lines' source: gunzipped when it starts with gzip's magic bytes. */
async function archiveStream(path: string): Promise<Readable> {
  let head: Buffer;
  try {
    const handle = await open(path, 'r');
    try {
      head = Buffer.alloc(2);
      await handle.read(head, 0, 2, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new ToolgateError('usage', `cannot read the archive ${path}: ${describeError(error)}`);
  }
  const file = createReadStream(path);
  if (head[0] !== 0x1f || head[1] !== 0x8b) return file;
  const gunzip = createGunzip();
  file.on('error', (error) => gunzip.destroy(error));
  return file.pipe(gunzip);
}
