// Several processes sharing one SQLite file: a client following a run over SSE
// on one of them gets the events another process appends (the store's
// subscription only hears its own process, so the stream reads the store).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { draft } from '../core/index.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';
import { collectSse } from '../../test/support/sse-client.ts';
import { startHttpServer } from './http-server.ts';
import { TestRunService } from '../../test/support/test-run-service.ts';

describe('SSE over a store shared by several processes', () => {
  it('streams events appended through another connection, in order, and ends on the terminal event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-sse-shared-'));
    const path = join(dir, 'runs.db');
    const here = await openSqliteRunStore({ path });
    const elsewhere = await openSqliteRunStore({ path });
    const http = await startHttpServer({
      service: new TestRunService(here),
      store: here,
      apiKeys: [],
      port: 0,
      ssePollMs: 50,
    });
    try {
      const run = await elsewhere.createRun({ input: 'x', model: 'm' });
      await elsewhere.append(run.id, [draft('user_message', { text: 'one' })]);
      const streamed = collectSse(`${http.url}/v1/runs/${run.id}/events`, { signal: AbortSignal.timeout(5000) });
      for (const text of ['two', 'three']) {
        await new Promise((r) => setTimeout(r, 120));
        await elsewhere.append(run.id, [draft('user_message', { text })]);
      }
      await elsewhere.append(
        run.id,
        [
          draft('run_completed', {
            output: 'done',
            usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
            steps: 0,
          }),
        ],
        { status: 'completed' },
      );
      const messages = await streamed;
      assert.deepEqual(
        messages.map((m) => m.id),
        ['1', '2', '3', '4'],
        'every event once, in order, none of them appended through this server’s connection',
      );
      assert.equal(messages.at(-1)?.event, 'run_completed');
    } finally {
      await http.close({ graceMs: 100 });
      await here.close();
      await elsewhere.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
