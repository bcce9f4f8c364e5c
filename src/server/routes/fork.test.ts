import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Run, RunEvent } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type ErrorBody = { error: { code: string; message: string } };

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('POST /v1/runs/{id}/fork', () => {
  let server: TestServer;
  let original: Run;
  before(async () => {
    server = await startTestServer(new MemoryRunStore());
    const response = await server.call('/v1/runs', { body: { input: 'Buy 5 MW' } });
    original = (await response.json()) as Run;
  });
  after(() => server.close());

  const fork = (body: unknown, runId = original.id): Promise<Response> =>
    server.call(`/v1/runs/${runId}/fork`, { body, headers: { traceparent: TRACEPARENT } });

  it('answers 201 with the fork and its Location; the validated request and the trace go to the service', async () => {
    server.service.calls.length = 0;
    const body = { afterEventId: 3, settings: { strategy: 'plan', maxSteps: 4, toolMode: 'prompted', todo: true } };
    const response = await fork(body);
    assert.equal(response.status, 201, await response.clone().text());
    const run = (await response.json()) as Run;
    assert.equal(response.headers.get('location'), `/v1/runs/${run.id}`);
    assert.deepEqual(run.metadata, { forkOf: { runId: original.id, afterEventId: 3 } });
    const [call] = server.service.calls;
    assert.equal(call?.method, 'forkRun');
    assert.deepEqual(call?.args, [original.id, { ...body, traceparent: TRACEPARENT }]);
    const events = (await (await server.call(`/v1/runs/${run.id}/events?format=json`)).json()) as {
      events: RunEvent[];
    };
    assert.deepEqual(
      events.events.map((e) => e.type),
      ['run_started', 'user_message', 'run_forked'],
    );
  });

  it('names the offending field of a bad body, and sends nothing on', async () => {
    server.service.calls.length = 0;
    const cases: [unknown, RegExp][] = [
      [{}, /afterEventId is required/],
      [{ afterEventId: 2.5 }, /afterEventId:/],
      [{ afterEventId: 0 }, /afterEventId:/],
      [{ afterEventId: '3' }, /afterEventId:/],
      [{ afterEventId: 3, from: 'x' }, /unknown field "from"/],
      [{ afterEventId: 3, settings: { maxStep: 3 } }, /unknown field "maxStep" in settings/],
      [{ afterEventId: 3, settings: { toolMode: 'fast' } }, /settings\.toolMode:/],
      [{ afterEventId: 3, settings: { maxSteps: 0 } }, /settings\.maxSteps:/],
      [{ afterEventId: 3, settings: { threadId: 't' } }, /unknown field "threadId" in settings/],
    ];
    for (const [body, message] of cases) {
      const response = await fork(body);
      const { error } = (await response.json()) as ErrorBody;
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(error.code, 'usage');
      assert.match(error.message, message, JSON.stringify(body));
    }
    assert.deepEqual(server.service.calls, [], 'a bad body never reaches the service');
  });

  it('a point past the log is refused with 400 naming its last event; an unknown run is 404', async () => {
    const past = await fork({ afterEventId: 50 });
    assert.equal(past.status, 400);
    assert.match(((await past.json()) as ErrorBody).error.message, /its last event is 3/);
    const missing = await fork({ afterEventId: 3 }, 'run_nobody');
    assert.equal(missing.status, 404);
  });
});
