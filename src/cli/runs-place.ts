import { existsSync } from 'node:fs';
import { openStore } from '../app/open-store.ts';
import { loadRuns, storeReader, type LoadedRuns, type RunReader } from '../app/replay/index.ts';
import { ToolgateError, type Run, type RunEvent, type RunStore } from '../core/index.ts';
import { usageError, type CliIO } from './cli-io.ts';
import { RunsClient } from './runs-client.ts';
import { whereFor, type Where } from './runs-where.ts';

/** Where stored runs are read from: a local store (kept open for writing a replay into it) or a server. */
export interface RunsPlace {
  where: Where;
  reader: RunReader;
  /** The local store; undefined for a server. */
  store?: RunStore;
  close(): Promise<void>;
}

/**
 * The place `--store` / `--url` (or TOOLGATE_URL, or the default store) names, as `toolgate runs` finds it. A store
 * named by hand must exist; the default one that does not exist yet holds no runs.
 */
export async function openRunsPlace(options: { values: Record<string, unknown>; io: CliIO }): Promise<RunsPlace> {
  const where = whereFor({ values: options.values, env: options.io.env, cwd: options.io.cwd });
  if (where.kind === 'remote') {
    const client = new RunsClient({ url: where.url, ...(where.apiKey === undefined ? {} : { apiKey: where.apiKey }) });
    return { where, reader: serverReader(client), close: () => Promise.resolve() };
  }
  if (where.path !== undefined && !existsSync(where.path) && !where.isDefault)
    throw usageError(
      `there is no store at ${where.path} (check --store; toolgate run --store sqlite:<file> records there)`,
    );
  const missing = where.path !== undefined && !existsSync(where.path);
  const store = await openStore(missing ? 'memory:' : where.spec);
  return { where, store, reader: storeReader(store, `the store ${where.spec}`), close: () => store.close() };
}

/**
 * Runs by id from `--store` / `--url` and runs of JSONL exports (`--from`), for `toolgate replay` and `toolgate policy
 * test`. Ids that are not there are in `missing`; the place stays open until `close`.
 */
export async function loadRunsFrom(options: {
  ids: readonly string[];
  files: readonly string[];
  values: Record<string, unknown>;
  io: CliIO;
}): Promise<LoadedRuns & { place: RunsPlace | undefined }> {
  const { ids, files, io } = options;
  const place = ids.length === 0 ? undefined : await openRunsPlace({ values: options.values, io });
  try {
    const loaded = await loadRuns({
      ids,
      files,
      cwd: io.cwd,
      ...(place === undefined ? {} : { reader: place.reader }),
    });
    return { ...loaded, place };
  } catch (error) {
    await place?.close();
    throw error;
  }
}

/** A server's runs through the runs API (toolgate/client): the run, then its whole log. */
function serverReader(client: RunsClient): RunReader {
  return {
    label: `the server at ${client.url}`,
    async read(runId) {
      let run: Run;
      try {
        run = await client.getRun(runId);
      } catch (error) {
        if (error instanceof ToolgateError && error.code === 'not_found') return undefined;
        throw error;
      }
      const events: RunEvent[] = [];
      for (;;) {
        const page = await client.readEvents(runId, events.at(-1)?.id ?? 0);
        events.push(...page);
        if (page.length === 0 || (events.at(-1)?.id ?? 0) >= run.lastEventId) break;
      }
      return { run, events };
    },
  };
}
