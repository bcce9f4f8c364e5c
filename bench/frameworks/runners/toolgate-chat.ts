// toolgate through its OpenAI-compatible route (POST /v1/chat/completions, docs/openai.md) on SQLite: the same
// server as toolgate-http.ts, asked the way an application written for OpenAI's API asks — streamed chunks when the
// workload streams, one JSON completion when it does not.
import type { CreateRunner } from '../runner.ts';
import { serverRunner } from './toolgate-server.ts';
import { tempDir } from './toolgate-setup.ts';

export const createRunner: CreateRunner = async (options) => {
  const dir = tempDir();
  return serverRunner(options, { store: `sqlite:${dir.path}/runs.db`, cleanup: dir.remove, protocol: 'chat' });
};
