import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type Run, type RunEvent } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { checkRun, runCost } from './check-run.ts';

async function fixture(): Promise<{ run: Run; events: RunEvent[] }> {
  const store = new MemoryRunStore();
  const created = await store.createRun({
    input: 'x',
    model: 'openai:m',
    settings: {
      maxSteps: 5,
      strategy: 'react',
      toolMode: 'native',
      parseRetries: 3,
      textToolCalls: 'auto',
      constrain: false,
      stream: false,
      price: { inputPerMTok: 10, outputPerMTok: 20 },
    },
  });
  const events = await store.append(
    created.id,
    [
      draft('gate_decision', {
        step: 1,
        toolCallId: 'c1',
        name: 'placeOrder',
        effect: 'write',
        decision: 'approval_required',
        normalisations: [],
        injected: [],
      }),
      draft('gate_decision', {
        step: 1,
        toolCallId: 'c1',
        name: 'placeOrder',
        effect: 'write',
        decision: 'allowed',
        normalisations: [],
        injected: [],
      }),
      draft('tool_call', {
        step: 1,
        toolCallId: 'c1',
        name: 'placeOrder',
        arguments: { userId: 'bob', side: 'BUY', qty: 1, price: 90.5 },
      }),
      draft('run_completed', {
        output: 'Order ord-12 placed.',
        usage: { promptTokens: 1000, completionTokens: 100, totalTokens: 1100 },
        steps: 2,
      }),
    ],
    {
      status: 'completed',
      output: 'Order ord-12 placed.',
      steps: 2,
      usage: { promptTokens: 1000, completionTokens: 100, totalTokens: 1100 },
    },
  );
  const run = (await store.getRun(created.id)) as Run;
  return { run, events };
}

describe('checkRun', () => {
  it(
    'passes a run that meets every expectation (argument ' + 'subsets, regex values, decisions, output, steps, cost)',
    async () => {
      const { run, events } = await fixture();
      assert.deepEqual(
        checkRun(
          {
            calls: [{ tool: 'placeOrder', args: { userId: 'bob', price: '/^90\\.5$/' } }],
            notCalls: ['cancelOrder'],
            decisions: [{ tool: 'placeOrder', decision: 'approval_required' }],
            output: { contains: ['ORDER', 'placed'], matches: 'ord-\\d+' },
            maxSteps: 2,
            maxCostUsd: 0.02,
          },
          run,
          events,
        ),
        [],
      );
      assert.equal(runCost(run), 0.012);
    },
  );

  it('says what was expected and what happened for each failed check', async () => {
    const { run, events } = await fixture();
    const failures = checkRun(
      {
        status: 'failed',
        calls: [{ tool: 'getOrderBook' }, { tool: 'placeOrder', args: { side: 'SELL' } }],
        notCalls: ['placeOrder'],
        decisions: [{ tool: 'placeOrder', decision: 'denied' }],
        output: { contains: 'sold', matches: '^nope$' },
        maxSteps: 1,
        maxCostUsd: 0.001,
      },
      run,
      events,
    );
    assert.deepEqual(
      failures.map((f) => f.split(':')[0]),
      ['status', 'calls', 'calls', 'notCalls', 'decisions', 'output', 'output', 'maxSteps', 'maxCostUsd'],
    );
    assert.match(failures[1] ?? '', /expected a call to getOrderBook; ran: placeOrder/);
    assert.match(failures[2] ?? '', /placeOrder ran, but never with \{"side":"SELL"\}/);
    assert.match(failures[4] ?? '', /the gate decided: placeOrder:approval_required, placeOrder:allowed/);
  });
});
