import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type ModelAdapter } from '../core/index.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { RunManager, defaultQueueLimitPerTenant } from './run-manager.ts';
import { Toolgate } from './toolgate.ts';

/**
 * A model that answers one call at a time when the test releases it, recording each run's input in the order it was
 * asked.
 */
function gatedModel(): ModelAdapter & { release: () => void; asked: string[] } {
  const waiting: (() => void)[] = [];
  const model = {
    id: 'gated:model',
    asked: [] as string[],
    release: () => waiting.shift()?.(),
    async generate(request: { messages: readonly { role: string; content?: unknown }[] }) {
      const first = request.messages.find((m) => m.role === 'user');
      model.asked.push(typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content));
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { text: 'answer', toolCalls: [], finishReason: 'stop' as const };
    },
  };
  return model;
}

async function until(what: string, fn: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!fn()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('RunManager: tenants share the queue', () => {
  it(
    "a tenant's flood fills only its share of the queue: another " +
      "tenant's run is still accepted, and runs start tenant by tenant",
    async () => {
      const model = gatedModel();
      const settings = resolveSettings(
        {
          tenants: {
            acme: { apiKeys: ['acme-key-123456'] },
            globex: { apiKeys: ['globex-key-123456'] },
            '*': { deny: ['x/*'] },
          },
        },
        {},
        {},
      );
      const toolgate = new Toolgate({ settings, model });
      // 4 places in all, 2 per tenant by default (two tenants).
      const manager = new RunManager({ toolgate, concurrency: 1, queueLimit: 4 });
      const acme = { tenantId: 'acme' };
      try {
        await manager.startRun(acme, { input: 'acme 0' });
        await until('the first run to ask the model', () => model.asked.length === 1);
        await manager.startRun(acme, { input: 'acme 1' });
        await manager.startRun(acme, { input: 'acme 2' });
        await assert.rejects(manager.startRun(acme, { input: 'acme 3' }), (error: unknown) => {
          assert.ok(error instanceof ToolgateError);
          assert.equal(error.code, 'overloaded');
          assert.match(
            error.message,
            new RegExp(
              String.raw`^tenant "acme" has 2 runs waiting for a slot, its share of the queue \(ser` +
                String.raw`ver.queueLimitPerTenant 2; other tenants still get in\); retry after \d+ s`,
            ),
          );
          assert.equal(error.details?.['limit'], 'server.queueLimitPerTenant');
          return true;
        });
        await manager.startRun({ tenantId: 'globex' }, { input: 'globex 1' });
        assert.deepEqual(manager.load, { active: 1, queued: 3 });
        for (let n = 2; n <= 4; n++) {
          model.release();
          await until(`run ${n} to ask the model`, () => model.asked.length === n);
        }
        assert.deepEqual(
          model.asked,
          ['acme 0', 'acme 1', 'globex 1', 'acme 2'],
          "globex's one run did not wait behind all of acme's",
        );
        model.release();
      } finally {
        await manager.shutdown({ graceMs: 100 });
        await toolgate.close();
      }
    },
  );

  it('the default share divides the queue among the tenants, at least a quarter each', () => {
    assert.equal(defaultQueueLimitPerTenant(256, 0), 256);
    assert.equal(defaultQueueLimitPerTenant(256, 1), 256);
    assert.equal(defaultQueueLimitPerTenant(256, 2), 128);
    assert.equal(defaultQueueLimitPerTenant(256, 40), 64);
    assert.equal(defaultQueueLimitPerTenant(0, 40), 0);
  });
});
