import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkToolPatterns, type PatternUse } from './check-tool-patterns.ts';
import type { ToolRef } from './match-tool-pattern.ts';

const ref = (server: string, tool: string, exposedName = tool): ToolRef => ({ server, tool, exposedName });
const TOOLS = [
  ref('power-exchange', 'placeOrder'),
  ref('power-exchange', 'cancelOrder'),
  ref('power-exchange', 'getOrderBook'),
  ref('crm', 'list_orders', 'crm_list_orders'),
];
const use = (pattern: string, where = 'tools'): PatternUse => ({ pattern, where });

describe('checkToolPatterns', () => {
  it('patterns that name a tool — exact, bare, exposed name, globs — are not reported', () => {
    const uses = [
      'power-exchange/cancelOrder',
      'cancelOrder',
      'crm_list_orders',
      'power-exchange/*',
      '*/get*',
      'list_*',
      '*',
      'power-*/place*',
    ].map((p) => use(p));
    assert.deepEqual(checkToolPatterns({ uses, tools: TOOLS, unknownServers: [] }), []);
  });

  it('a typo matches nothing and names the tool meant', () => {
    assert.deepEqual(
      checkToolPatterns({
        uses: [use('power-exchange/cancelOrdr', 'tenants.acme.deny')],
        tools: TOOLS,
        unknownServers: [],
      }),
      [
        {
          pattern: 'power-exchange/cancelOrdr',
          where: 'tenants.acme.deny',
          kind: 'matches_nothing',
          closest: 'power-exchange/cancelOrder',
        },
      ],
    );
    assert.equal(
      checkToolPatterns({ uses: [use('placeOrdr')], tools: TOOLS, unknownServers: [] })[0]?.closest,
      'placeOrder',
    );
    assert.equal(
      checkToolPatterns({ uses: [use('power-exchnge/*')], tools: TOOLS, unknownServers: [] })[0]?.closest,
      'power-exchange/*',
    );
    assert.deepEqual(checkToolPatterns({ uses: [use('billing/refund')], tools: TOOLS, unknownServers: [] }), [
      { pattern: 'billing/refund', where: 'tools', kind: 'matches_nothing' },
    ]);
  });

  it('a pattern that could name a tool of a server whose tools are not known is unverifiable, not wrong', () => {
    const findings = checkToolPatterns({
      uses: [use('crm/*'), use('deleteCustomer'), use('power-exchange/cancelOrdr'), use('cr*/x')],
      tools: TOOLS.filter((t) => t.server !== 'crm'),
      unknownServers: ['crm'],
    });
    assert.deepEqual(
      findings.map((f) => [f.pattern, f.kind]),
      [
        ['crm/*', 'unverifiable'],
        ['deleteCustomer', 'unverifiable'],
        ['power-exchange/cancelOrdr', 'matches_nothing'],
        ['cr*/x', 'unverifiable'],
      ],
    );
  });
});
