import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { draft } from '../../core/events.ts';
import type { Run } from '../../core/runs.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { requestHash } from '../schemas.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type ErrorBody = { error: { code: string; message: string } };

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as ErrorBody;
  return { status: response.status, code: body.error.code, message: body.error.message };
}

describe('runs API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore(), { maxBodyBytes: 2048 });
  });
  after(() => server.close());

  describe('POST /v1/runs', () => {
    it('creates a run: 201, Location, the Run as JSON, the validated request passed on', async () => {
      server.service.calls.length = 0;
      const body = {
        input: 'Buy 5 MW',
        threadId: 't1',
        model: 'openai:gpt-4o-mini',
        dryRun: true,
        context: { account: 'A-1' },
        metadata: { ticket: 7 },
        maxSteps: 4,
      };
      const response = await server.call('/v1/runs', { body });
      assert.equal(response.status, 201);
      const run = (await response.json()) as Run;
      assert.equal(response.headers.get('location'), `/v1/runs/${run.id}`);
      assert.equal(run.input, 'Buy 5 MW');
      assert.equal(run.status, 'running');
      const [call] = server.service.calls;
      assert.equal(call?.method, 'startRun');
      assert.deepEqual(call?.caller, {});
      assert.deepEqual(call?.args, [body, undefined]);
    });

    it('names the offending field in validation errors', async () => {
      const cases: [unknown, RegExp][] = [
        [{}, /input is required/],
        [{ input: '' }, /input: must be a non-empty string/],
        [{ input: 'x', maxStep: 3 }, /unknown field "maxStep"/],
        [{ input: 'x', maxSteps: 2.5 }, /maxSteps:/],
        [{ input: 'x', dryRun: 'yes' }, /dryRun:/],
        [{ input: 'x', context: [1] }, /context:/],
        [[{ input: 'x' }], /the body must be a JSON object/],
      ];
      for (const [body, message] of cases) {
        const error = await errorOf(await server.call('/v1/runs', { body }));
        assert.equal(error.status, 400, JSON.stringify(body));
        assert.equal(error.code, 'usage');
        assert.match(error.message, message);
      }
      const missing = await errorOf(await server.call('/v1/runs', { method: 'POST' }));
      assert.equal(missing.status, 400);
      assert.match(missing.message, /request body is required/);
    });

    it('reports invalid JSON with its line, column and position', async () => {
      const error = await errorOf(await server.call('/v1/runs', { body: '{"input": "x",\n  "dryRun": nope}' }));
      assert.equal(error.status, 400);
      assert.match(error.message, /not valid JSON at line 2, column 14 \(position 28\)/);
      const trailing = await errorOf(await server.call('/v1/runs', { body: '{"input": "x",}' }));
      assert.match(trailing.message, /line 1, column 15 \(position 14\)/);
    });

    it('refuses a non-JSON body with 415 and an oversized one with 413', async () => {
      const form = await server.call('/v1/runs', {
        body: 'input=x',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 415);
      assert.match((await errorOf(form)).message, /Content-Type: application\/json/);
      const big = await server.call('/v1/runs', { body: { input: 'x'.repeat(5000) } });
      assert.equal(big.status, 413);
      assert.match((await errorOf(big)).message, /larger than 2048 bytes/);
    });

    it(
      'passes Idempotency-Key with the canonical body hash: ' + '201 then 200 with the same run, 422 for another body',
      async () => {
        server.service.calls.length = 0;
        const headers = { 'Idempotency-Key': 'order-42' };
        const first = await server.call('/v1/runs', { body: { input: 'once', metadata: { b: 1, a: 2 } }, headers });
        assert.equal(first.status, 201);
        // Same body, other key order: the same request.
        const again = await server.call('/v1/runs', { body: { metadata: { a: 2, b: 1 }, input: 'once' }, headers });
        assert.equal(again.status, 200);
        assert.equal(((await again.json()) as Run).id, ((await first.json()) as Run).id);
        assert.deepEqual(server.service.calls[0]?.args[1], {
          key: 'order-42',
          requestHash: requestHash({ input: 'once', metadata: { a: 2, b: 1 } }),
        });
        const other = await errorOf(await server.call('/v1/runs', { body: { input: 'twice' }, headers }));
        assert.deepEqual([other.status, other.code], [422, 'idempotency_mismatch']);
        const bad = await errorOf(
          await server.call('/v1/runs', { body: { input: 'x' }, headers: { 'Idempotency-Key': 'x'.repeat(256) } }),
        );
        assert.deepEqual([bad.status, bad.code], [400, 'usage']);
      },
    );
  });

  describe('GET /v1/runs and /v1/runs/{id}', () => {
    it('lists runs with filters and a cursor', async () => {
      for (const input of ['l1', 'l2', 'l3'])
        await server.call('/v1/runs', { body: { input, threadId: 'list-thread' } });
      const page1 = (await (await server.call('/v1/runs?threadId=list-thread&limit=2')).json()) as {
        runs: Run[];
        nextCursor?: string;
      };
      assert.deepEqual(
        page1.runs.map((r) => r.input),
        ['l3', 'l2'],
      );
      assert.ok(page1.nextCursor !== undefined);
      const page2 = (await (
        await server.call(`/v1/runs?threadId=list-thread&limit=2&cursor=${page1.nextCursor}`)
      ).json()) as { runs: Run[]; nextCursor?: string };
      assert.deepEqual(
        page2.runs.map((r) => r.input),
        ['l1'],
      );
      assert.equal(page2.nextCursor, undefined);
      const running = (await (await server.call('/v1/runs?status=running&threadId=list-thread')).json()) as {
        runs: Run[];
      };
      assert.equal(running.runs.length, 3);
    });

    it('validates status and limit', async () => {
      for (const query of ['status=done', 'limit=0', 'limit=201', 'limit=ten', 'limit=1.5']) {
        const error = await errorOf(await server.call(`/v1/runs?${query}`));
        assert.deepEqual([error.status, error.code], [400, 'usage'], query);
      }
      assert.match(
        (await errorOf(await server.call('/v1/runs?status=done'))).message,
        /queued, running, waiting_approval/,
      );
    });

    it('returns a run with its pending approval, 404 for an unknown one', async () => {
      const run = (await (await server.call('/v1/runs', { body: { input: 'approve me' } })).json()) as Run;
      const pendingApproval = {
        toolCallId: 'call_1',
        name: 'placeOrder',
        arguments: { mw: 5 },
        effect: 'write' as const,
        reason: 'policy' as const,
        eventId: 5,
      };
      await server.service.emit(
        run.id,
        [
          draft('run_status', { from: 'running', to: 'waiting_approval' }),
          draft('approval_required', {
            step: 1,
            toolCallId: 'call_1',
            name: 'placeOrder',
            arguments: { mw: 5 },
            effect: 'write',
            reason: 'policy',
          }),
        ],
        { status: 'waiting_approval', pendingApproval },
      );
      const got = (await (await server.call(`/v1/runs/${run.id}`)).json()) as Run;
      assert.equal(got.status, 'waiting_approval');
      assert.deepEqual(got.pendingApproval, pendingApproval);
      const missing = await errorOf(await server.call('/v1/runs/run_missing'));
      assert.deepEqual([missing.status, missing.code], [404, 'not_found']);
    });
  });

  describe('POST /v1/runs/{id}/input and /cancel', () => {
    it('delivers an approval (202, with the caller’s user), refuses one for a call not pending (409)', async () => {
      const run = (await (await server.call('/v1/runs', { body: { input: 'needs approval' } })).json()) as Run;
      await server.service.emit(run.id, [draft('run_status', { from: 'running', to: 'waiting_approval' })], {
        status: 'waiting_approval',
        pendingApproval: {
          toolCallId: 'call_9',
          name: 'placeOrder',
          arguments: {},
          effect: 'write',
          reason: 'policy',
          eventId: 4,
        },
      });
      server.service.calls.length = 0;
      const decision = {
        type: 'approval',
        toolCallId: 'call_9',
        decision: 'edit',
        arguments: { mw: 4 },
        reason: 'smaller',
      };
      const accepted = await server.call(`/v1/runs/${run.id}/input`, {
        body: decision,
        headers: { 'X-User-Id': 'alice' },
      });
      assert.equal(accepted.status, 202);
      assert.equal(((await accepted.json()) as Run).id, run.id);
      assert.deepEqual(server.service.calls[0]?.args, [run.id, { ...decision, userId: 'alice' }]);
      const events = (await (await server.call(`/v1/runs/${run.id}/events?format=json`)).json()) as {
        events: { type: string }[];
      };
      assert.equal(events.events.at(-1)?.type, 'input_received');

      const stale = await errorOf(
        await server.call(`/v1/runs/${run.id}/input`, {
          body: { type: 'approval', toolCallId: 'call_0', decision: 'approve' },
        }),
      );
      assert.deepEqual([stale.status, stale.code], [409, 'conflict']);
    });

    it('validates input bodies', async () => {
      const cases: [unknown, RegExp][] = [
        [{ type: 'approval', toolCallId: 'c', decision: 'edit' }, /arguments: required when decision is "edit"/],
        [{ type: 'approval', toolCallId: 'c', decision: 'maybe' }, /decision:/],
        [{ type: 'note', text: 'x' }, /type: must be "approval"/],
        [{ type: 'message', text: 'hi', userId: 'mallory' }, /unknown field "userId"/],
      ];
      for (const [body, message] of cases) {
        const error = await errorOf(await server.call('/v1/runs/run_any/input', { body }));
        assert.equal(error.status, 400, JSON.stringify(body));
        assert.match(error.message, message);
      }
    });

    it('accepts a message for a running run', async () => {
      const run = (await (await server.call('/v1/runs', { body: { input: 'chat' } })).json()) as Run;
      const response = await server.call(`/v1/runs/${run.id}/input`, { body: { type: 'message', text: 'also this' } });
      assert.equal(response.status, 202);
    });

    it('cancels a run (202), a finished run is a conflict (409)', async () => {
      const run = (await (await server.call('/v1/runs', { body: { input: 'stop me' } })).json()) as Run;
      const cancelled = await server.call(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
      assert.equal(cancelled.status, 202);
      assert.equal(((await cancelled.json()) as Run).status, 'cancelled');
      const again = await errorOf(await server.call(`/v1/runs/${run.id}/cancel`, { method: 'POST' }));
      assert.deepEqual([again.status, again.code], [409, 'conflict']);
    });
  });

  describe('GET /v1/tools', () => {
    it(
      'lists the tenant’s tools with their effect, approval, injected ' +
        'arguments, trust and availability, and every server’s state',
      async () => {
        server.service.tools = [
          {
            name: 'placeOrder',
            description: 'Places an order.',
            inputSchema: { type: 'object' },
            annotations: { readOnlyHint: false },
            origin: { kind: 'mcp', server: 'power-exchange', tool: 'placeOrder' },
            effect: 'write',
            approval: 'required',
            injected: ['userId', 'account'],
            untrusted: false,
            available: false,
          },
          {
            name: 'todo_list',
            description: 'Lists todos.',
            inputSchema: { type: 'object' },
            origin: { kind: 'builtin', server: 'toolgate', tool: 'list' },
            effect: 'read',
            approval: 'never',
            injected: [],
            untrusted: true,
            available: true,
          },
        ];
        const down = {
          name: 'power-exchange',
          state: 'down' as const,
          tools: 1,
          error: 'ECONNREFUSED 127.0.0.1:3000',
          since: '2026-01-01T00:00:00.000Z',
          failures: 2,
          retryAt: '2026-01-01T00:00:04.000Z',
        };
        server.service.servers = [down];
        assert.deepEqual(await (await server.call('/v1/tools')).json(), {
          tools: [
            {
              name: 'placeOrder',
              description: 'Places an order.',
              inputSchema: { type: 'object' },
              annotations: { readOnlyHint: false },
              origin: { kind: 'mcp', server: 'power-exchange', tool: 'placeOrder' },
              effect: 'write',
              approval: 'required',
              injected: ['userId', 'account'],
              untrusted: false,
              available: false,
            },
            {
              name: 'todo_list',
              description: 'Lists todos.',
              inputSchema: { type: 'object' },
              annotations: {},
              origin: { kind: 'builtin', server: 'toolgate', tool: 'list' },
              effect: 'read',
              approval: 'never',
              injected: [],
              untrusted: true,
              available: true,
            },
          ],
          servers: [down],
        });
        server.service.servers = [];
      },
    );
  });
});
