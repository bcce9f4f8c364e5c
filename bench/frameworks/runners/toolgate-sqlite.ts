// toolgate as a library with the SQLite store: a file in a temporary folder,
// default settings (WAL, synchronous NORMAL).
import type { CreateRunner } from '../runner.ts';
import { libraryRunner } from './toolgate-library.ts';
import { openToolgate, tempDir } from './toolgate-setup.ts';

export const createRunner: CreateRunner = async (options) => {
  const dir = tempDir();
  return libraryRunner(await openToolgate(options, `sqlite:${dir.path}/runs.db`), options, dir.remove);
};
