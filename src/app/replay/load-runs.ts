import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ToolgateError, describeError, type RunEvent, type RunStore } from '../../core/index.ts';
import type { RecordedRun } from './recorded-run.ts';
import { readExport } from './run-export.ts';

/** Where stored runs are read by id: a local store (storeReader), or a server (the CLI reads one with its client). */
export interface RunReader {
  /** For messages: `the store sqlite:/…`, `the server at http://…`. */
  readonly label: string;
  /** The run with its whole log; undefined when there is no such run. Other failures reject. */
  read(runId: string): Promise<RecordedRun | undefined>;
}

/** A loaded run and where it came from (`run <id> in the store …`, `runs.jsonl`). */
export type LoadedRun = RecordedRun & { source: string };

export interface LoadRunsOptions {
  /** Run ids, read from `store` or `reader`. */
  ids?: readonly string[];
  /** JSONL exports (`toolgate runs export`), every run of each; relative paths resolve against `cwd`. */
  files?: readonly string[];
  /** The store the ids are read from. */
  store?: RunStore;
  /** Or any reader (a server's runs API). Wins over `store`. */
  reader?: RunReader;
  cwd?: string;
}

export interface LoadedRuns {
  /** In the order asked: the ids first, then each file's runs. */
  runs: LoadedRun[];
  /** Ids that could not be read, each with the reason; the others are loaded all the same. */
  missing: { id: string; message: string }[];
}

const EVENT_PAGE = 1000;

/**
 * The runs a replay or a policy test works on: stored runs by id and the runs of JSONL exports. An id that is not
 * there is reported in `missing` (the others load); a file that cannot be read or is not an export rejects (`usage`),
 * naming the file and the line.
 */
export async function loadRuns(options: LoadRunsOptions): Promise<LoadedRuns> {
  const ids = options.ids ?? [];
  const reader = options.reader ?? (options.store === undefined ? undefined : storeReader(options.store));
  if (ids.length > 0 && reader === undefined)
    throw new ToolgateError('usage', `run ids (${ids.join(', ')}) need a store or a server to read them from`);
  const runs: LoadedRun[] = [];
  const missing: LoadedRuns['missing'] = [];
  for (const id of ids) {
    if (reader === undefined) break;
    try {
      const recorded = await reader.read(id);
      if (recorded === undefined) missing.push({ id, message: `run ${id} not found in ${reader.label}` });
      else runs.push({ ...recorded, source: `run ${id} in ${reader.label}` });
    } catch (error) {
      missing.push({ id, message: `run ${id} could not be read from ${reader.label}: ${describeError(error)}` });
    }
  }
  for (const file of options.files ?? []) {
    const path = resolve(options.cwd ?? process.cwd(), file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new ToolgateError('usage', `cannot read the export ${file}: ${describeError(error)}`);
    }
    for (const recorded of readExport(text, file)) runs.push({ ...recorded, source: file });
  }
  return { runs, missing };
}

/** A RunReader over a store: the run and its whole log, read page by page. */
export function storeReader(store: RunStore, label = 'the store'): RunReader {
  return {
    label,
    async read(runId) {
      const run = await store.getRun(runId);
      if (run === undefined) return undefined;
      return { run, events: await readAllEvents(store, runId) };
    },
  };
}

/** Every event of a run, in order. */
export async function readAllEvents(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (let after = 0; ;) {
    const page = await store.readEvents(runId, { after, limit: EVENT_PAGE });
    events.push(...page);
    const last = page.at(-1);
    if (last === undefined || page.length < EVENT_PAGE) return events;
    after = last.id;
  }
}
