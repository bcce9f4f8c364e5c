// toolgate through its HTTP server (toolgate-server.ts) on SQLite: a file in a
// temporary folder, default settings.
import type { CreateRunner } from '../runner.ts';
import { serverRunner } from './toolgate-server.ts';
import { tempDir } from './toolgate-setup.ts';

export const createRunner: CreateRunner = async (options) => {
  const dir = tempDir();
  return serverRunner(options, { store: `sqlite:${dir.path}/runs.db`, cleanup: dir.remove });
};
