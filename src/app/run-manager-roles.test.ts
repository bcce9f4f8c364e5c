import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, ToolgateError, type JsonObject, type Run } from '../core/index.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { defineTool } from '../tools/local/define-tool.ts';
import { LocalToolSource } from '../tools/local/local-tool-source.ts';
import { RunManager } from './run-manager.ts';
import { Toolgate } from './toolgate.ts';
import { scriptedModel } from '../../test/support/scripted-model.ts';

const ORDER = { side: 'BUY', qty: 5 };

/** An exchange whose placeOrder records each order it is sent. */
function pxTools(orders: JsonObject[]): LocalToolSource {
  return new LocalToolSource({
    name: 'px',
    tools: [
      defineTool({
        name: 'placeOrder',
        description: 'Places an order.',
        inputSchema: { type: 'object', properties: { side: { type: 'string' }, qty: { type: 'integer' } } },
        effect: 'write',
        execute: (args) => (orders.push(args), { placed: true }),
      }),
    ],
  });
}

/** A desk whose orders only traders approve; `head` may decide once a call was escalated. */
function desk(orders: JsonObject[], turns: number): { toolgate: Toolgate; manager: RunManager } {
  const settings = resolveSettings(
    {
      tenants: {
        acme: {
          apiKeys: [
            { key: 'trader-key-1234', roles: ['trader'] },
            { key: 'viewer-key-1234', roles: ['viewer'] },
          ],
          approvers: { 'px/placeOrder': ['trader'] },
        },
      },
      approvals: { escalation: { approvers: ['head'] } },
    },
    {},
    {},
  );
  const px = pxTools(orders);
  const calls = Array.from({ length: turns }, (_, i) => [
    { toolCalls: [{ id: `call-${i}`, name: 'placeOrder', arguments: JSON.stringify(ORDER) }] },
    { text: 'placed' },
  ]).flat();
  const toolgate = new Toolgate({ settings, model: scriptedModel(calls), tools: [px] });
  return { toolgate, manager: new RunManager({ toolgate, concurrency: 1 }) };
}

async function untilWaiting(toolgate: Toolgate, runId: string): Promise<Run> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await toolgate.store.getRun(runId);
    if (run?.status === 'waiting_approval') return run;
    if (Date.now() > deadline) assert.fail(`run ${runId} never waited for approval (${run?.status})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function untilDone(toolgate: Toolgate, runId: string): Promise<Run> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await toolgate.store.getRun(runId);
    if (run?.status === 'completed' || run?.status === 'failed') return run;
    if (Date.now() > deadline) assert.fail(`run ${runId} never ended (${run?.status})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const TRADER = { tenantId: 'acme', roles: ['trader'] };
const VIEWER = { tenantId: 'acme', roles: ['viewer'] };
const HEAD = { tenantId: 'acme', roles: ['head'] };

function forbidden(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ToolgateError);
    assert.equal(error.code, 'forbidden');
    assert.match(error.message, pattern);
    return true;
  };
}

describe('RunManager: who may decide an approval (tenants.<id>.approvers)', () => {
  it("refuses a viewer's decision before anything is written, and runs the call on a trader's", async () => {
    const orders: JsonObject[] = [];
    const { toolgate, manager } = desk(orders, 1);
    try {
      const { run } = await manager.startRun(TRADER, { input: 'buy' });
      assert.deepEqual(run.settings?.roles, ['trader'], 'the run records its caller roles');
      const asked = await untilWaiting(toolgate, run.id);
      const toolCallId = asked.pendingApproval?.toolCallId ?? assert.fail('no pending call');
      const before = (await toolgate.store.readEvents(run.id)).length;
      for (const decision of ['approve', 'reject'] as const) {
        await assert.rejects(
          manager.submitInput(VIEWER, run.id, { type: 'approval', toolCallId, decision }),
          forbidden(
            /^only role trader may decide approvals of px\/placeOrder \(tenants\.acme\.approvers\); you hold: viewer$/,
          ),
        );
      }
      assert.equal((await toolgate.store.readEvents(run.id)).length, before, 'nothing was written');
      assert.equal((await toolgate.store.getRun(run.id))?.status, 'waiting_approval');
      assert.equal(orders.length, 0);

      await manager.submitInput(TRADER, run.id, { type: 'approval', toolCallId, decision: 'approve' });
      assert.equal((await untilDone(toolgate, run.id)).status, 'completed');
      assert.deepEqual(orders, [ORDER]);
      const received = (await toolgate.store.readEvents(run.id)).flatMap((e) =>
        e.type === 'input_received' && e.data.input.type === 'approval' ? [e.data.input] : [],
      );
      assert.deepEqual(received[0]?.source, {
        via: 'api',
        roles: ['trader'],
      });
    } finally {
      await manager.shutdown({ graceMs: 100 });
      await toolgate.close();
    }
  });

  it('accepts an escalation approver once the call was escalated, and not before', async () => {
    const orders: JsonObject[] = [];
    const { toolgate, manager } = desk(orders, 1);
    try {
      const { run } = await manager.startRun(TRADER, { input: 'buy' });
      const asked = await untilWaiting(toolgate, run.id);
      const toolCallId = asked.pendingApproval?.toolCallId ?? assert.fail('no pending call');
      const approve = { type: 'approval', toolCallId, decision: 'approve' } as const;
      await assert.rejects(manager.submitInput(HEAD, run.id, approve), forbidden(/you hold: head$/));
      await toolgate.store.append(run.id, [
        draft('approval_timed_out', { toolCallId, action: 'notify-again', waitedMs: 1000, round: 1 }),
      ]);
      await assert.rejects(manager.submitInput(HEAD, run.id, approve), forbidden(/only role trader/));
      await toolgate.store.append(run.id, [
        draft('approval_timed_out', { toolCallId, action: 'escalate', waitedMs: 2000, round: 2 }),
      ]);
      await assert.rejects(
        manager.submitInput(VIEWER, run.id, approve),
        forbidden(/^only roles trader or head may decide .*approvals\.escalation\.approvers\); you hold: viewer$/),
      );
      await manager.submitInput(HEAD, run.id, approve);
      assert.equal((await untilDone(toolgate, run.id)).status, 'completed');
      assert.equal(orders.length, 1);
    } finally {
      await manager.shutdown({ graceMs: 100 });
      await toolgate.close();
    }
  });

  it("does not role-check decisions toolgate makes itself (a link's, a timeout's)", async () => {
    const orders: JsonObject[] = [];
    const { toolgate, manager } = desk(orders, 1);
    try {
      const { run } = await manager.startRun(TRADER, { input: 'buy' });
      const asked = await untilWaiting(toolgate, run.id);
      const toolCallId = asked.pendingApproval?.toolCallId ?? assert.fail('no pending call');
      await manager.submitInput({ tenantId: 'acme' }, run.id, {
        type: 'approval',
        toolCallId,
        decision: 'reject',
        source: { via: 'timeout' },
      });
      assert.equal((await untilDone(toolgate, run.id)).status, 'completed');
      assert.equal(orders.length, 0);
    } finally {
      await manager.shutdown({ graceMs: 100 });
      await toolgate.close();
    }
  });

  it("lists only the tools the caller's roles allow", async () => {
    const settings = resolveSettings(
      { tenants: { acme: { allow: [], roles: { trader: { allow: ['px/*'] } } } } },
      {},
      {},
    );
    const toolgate = new Toolgate({ settings, model: scriptedModel([]), tools: [pxTools([])] });
    try {
      const manager = new RunManager({ toolgate });
      assert.deepEqual(
        (await manager.listTools(TRADER)).tools.map((tool) => tool.name),
        ['placeOrder'],
      );
      assert.deepEqual((await manager.listTools(VIEWER)).tools, []);
    } finally {
      await toolgate.close();
    }
  });
});
