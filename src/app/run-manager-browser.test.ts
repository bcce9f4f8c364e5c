// What the browser console reads through RunManager: models per tenant, tool policy fields, filtered run lists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveSettings } from '../config/resolve-settings.ts';
import { defineTool } from '../tools/local/define-tool.ts';
import { LocalToolSource } from '../tools/local/local-tool-source.ts';
import { RunManager } from './run-manager.ts';
import { Toolgate } from './toolgate.ts';

const wallet = defineTool({
  name: 'getWallet',
  description: 'Reads a wallet.',
  inputSchema: { type: 'object', properties: { userId: { type: 'string' }, account: { type: 'string' } } },
  effect: 'read',
  execute: () => 'ok',
});
const order = defineTool({
  name: 'placeOrder',
  description: 'Places an order.',
  inputSchema: { type: 'object' },
  effect: 'write',
  execute: () => 'ok',
});

function manager(config: Parameters<typeof resolveSettings>[0]): { manager: RunManager; toolgate: Toolgate } {
  const toolgate = new Toolgate({
    settings: resolveSettings(config, {}, {}),
    tools: [new LocalToolSource({ name: 'shop', tools: [wallet, order] })],
  });
  return { manager: new RunManager({ toolgate }), toolgate };
}

describe('RunManager for the browser console', () => {
  it('listModels: the default and the allowed models, narrowed per tenant', async () => {
    const { manager: m } = manager({
      model: 'openai:gpt-4o-mini',
      models: ['openai:gpt-4o*', 'openai:o3'],
      tenants: { acme: { models: ['openai:gpt-4o-mini'] }, globex: {} },
    });
    assert.deepEqual(await m.listModels({ tenantId: 'globex' }), {
      default: 'openai:gpt-4o-mini',
      models: ['openai:gpt-4o-mini', 'openai:gpt-4o*', 'openai:o3'],
    });
    assert.deepEqual(await m.listModels({ tenantId: 'acme' }), {
      default: 'openai:gpt-4o-mini',
      models: ['openai:gpt-4o-mini'],
    });
    const { manager: bare } = manager({});
    assert.deepEqual(await bare.listModels({}), { models: [] });
  });

  it('listTools: each tool with its approval mode, injected argument names and trust', async () => {
    const { manager: m, toolgate } = manager({
      tools: {
        'shop/getWallet': { inject: { userId: '{{user.id}}', account: '{{context.account}}' }, untrusted: true },
        'shop/placeOrder': { approval: 'auto' },
      },
    });
    try {
      const { tools } = await m.listTools({});
      const byName = Object.fromEntries(
        tools.map((t) => [
          t.name,
          { approval: t.approval, injected: t.injected, untrusted: t.untrusted, effect: t.effect },
        ]),
      );
      assert.deepEqual(byName, {
        getWallet: { approval: 'never', injected: ['userId', 'account'], untrusted: true, effect: 'read' },
        placeOrder: { approval: 'auto', injected: [], untrusted: false, effect: 'write' },
      });
    } finally {
      await toolgate.close();
    }
  });

  it(
    'listRuns: strategy and q filter the caller’s runs, page by ' +
      'page with a cursor that goes on after the last run examined',
    async () => {
      const { manager: m, toolgate } = manager({});
      const settings = (strategy: 'react' | 'plan') => ({
        maxSteps: 5,
        strategy,
        toolMode: 'native' as const,
        parseRetries: 3,
        textToolCalls: 'auto' as const,
        constrain: false,
        stream: true,
      });
      for (let i = 0; i < 7; i++) {
        await toolgate.store.createRun({
          input: `${i % 2 === 0 ? 'Buy' : 'sell'} ${i} MW`,
          model: 'm',
          tenantId: 'acme',
          settings: settings(i % 3 === 0 ? 'plan' : 'react'),
        });
      }
      await toolgate.store.createRun({
        input: 'buy for another tenant',
        model: 'm',
        tenantId: 'globex',
        settings: settings('plan'),
      });
      const legacy = await toolgate.store.createRun({ input: 'buy without settings', model: 'm', tenantId: 'acme' });
      const acme = { tenantId: 'acme' };
      const collect = async (query: {
        strategy?: 'plan' | 'react';
        q?: string;
        limit: number;
      }): Promise<string[][]> => {
        const pages: string[][] = [];
        let cursor: string | undefined;
        do {
          const page = await m.listRuns(acme, { ...query, ...(cursor === undefined ? {} : { cursor }) });
          pages.push(page.runs.map((r) => r.input));
          cursor = page.nextCursor;
        } while (cursor !== undefined && pages.length < 20);
        return pages;
      };
      assert.deepEqual(await collect({ strategy: 'plan', limit: 2 }), [['Buy 6 MW', 'sell 3 MW'], ['Buy 0 MW']]);
      assert.deepEqual((await collect({ q: 'BUY', limit: 3 })).flat(), [
        'buy without settings',
        'Buy 6 MW',
        'Buy 4 MW',
        'Buy 2 MW',
        'Buy 0 MW',
      ]);
      // The last match ends a page with a cursor (more runs follow in the store): the next page is empty and final.
      assert.deepEqual(await collect({ q: 'buy', strategy: 'react', limit: 1 }), [['Buy 4 MW'], ['Buy 2 MW'], []]);
      assert.deepEqual(
        (await m.listRuns(acme, { strategy: 'react' })).runs.map((r) => r.input),
        ['sell 5 MW', 'Buy 4 MW', 'Buy 2 MW', 'sell 1 MW'],
      );
      assert.deepEqual(
        (await m.listRuns(acme, { q: legacy.id.slice(-10).toUpperCase() })).runs.map((r) => r.id),
        [legacy.id],
        'q matches the run id too',
      );
    },
  );
});
