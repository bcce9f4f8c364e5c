// toolgate through its HTTP server (toolgate-server.ts) on PostgreSQL: the
// store is the postgres:// URL of an empty database of this process's own, so
// that no run sees another's rows and the store's migrations run as on a first
// start. compare.ts creates that database before starting this process (the
// creation is not toolgate's start-up) and drops it once the process has ended,
// however it ended; the URL comes in BENCH_POSTGRES_DATABASE_URL. Started by
// hand without it, the runner creates one on the configured server
// (bench/postgres-url.ts) and drops it when closed.
import { POSTGRES_URL } from '../../postgres-url.ts';
import { createThrowawayDatabase, DATABASE_URL_ENV } from '../postgres-database.ts';
import type { CreateRunner } from '../runner.ts';
import { serverRunner } from './toolgate-server.ts';

export const createRunner: CreateRunner = async (options) => {
  const given = process.env[DATABASE_URL_ENV];
  if (given !== undefined && given !== '') return serverRunner(options, { store: given });
  const database = await createThrowawayDatabase(POSTGRES_URL);
  try {
    return await serverRunner(options, { store: database.url, cleanup: database.drop });
  } catch (error) {
    await database.drop();
    throw error;
  }
};
