import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolRequest, ToolResult, ToolSource, ToolSpec } from '../../core/index.ts';
import { handLog, ran } from '../../../test/support/replay-logs.ts';
import { ReplayToolSource, WOULD_RUN } from './replay-tool-source.ts';

const spec = (name: string, readOnly: boolean): ToolSpec => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: readOnly },
  origin: { kind: 'mcp', server: 'venue', tool: name },
});

/** The real tools: a replay may list them; anything that reaches callTool is recorded here. */
class Venue implements ToolSource {
  readonly name = 'venue';
  readonly called: string[] = [];
  closed = false;
  async listTools(): Promise<ToolSpec[]> {
    return [spec('placeOrder', false), spec('getOrderBook', true)];
  }
  async callTool(request: CallToolRequest): Promise<ToolResult> {
    this.called.push(request.name);
    return { ok: true, content: [{ type: 'text', text: `live ${request.name}` }] };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

const BID = { step: 1, id: 'call_1', name: 'placeOrder' };

async function source(options: { allowReads?: boolean } = {}) {
  const { events } = await handLog([
    ...ran(BID, { userId: 'alice', qty: 7000, password: '[redacted]' }, 'order 1 placed'),
    ...ran({ ...BID, id: 'call_2' }, { userId: 'alice', qty: 7000, password: '[redacted]' }, 'order 2 placed'),
  ]);
  const venue = new Venue();
  const tools = new ReplayToolSource({ tools: venue, events, policy: { tools: {}, tenants: {} }, ...options });
  await tools.listing();
  const call = (name: string, args: CallToolRequest['arguments'], id: string) =>
    tools.callTool({ name, arguments: args, invocation: { runId: 'r', toolCallId: id } });
  return { tools, venue, call };
}

const textOf = (result: ToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('ReplayToolSource', () => {
  it("gives a call the original's result for the same tool and normalised arguments, each once, in order", async () => {
    const { tools, venue, call } = await source();
    // Another key order and the real password: compared as the log records them (canonical, redacted).
    const args = { qty: 7000, password: 'hunter2', userId: 'alice' };
    assert.equal(textOf(await call('placeOrder', args, 'a')), 'order 1 placed');
    assert.equal(textOf(await call('placeOrder', args, 'b')), 'order 2 placed');
    assert.equal(tools.outcomeOf('a'), 'recorded_result');
    assert.equal(tools.outcomeOf('b'), 'recorded_result');
    const third = await call('placeOrder', args, 'c');
    assert.equal(tools.outcomeOf('c'), 'would_run');
    assert.deepEqual(third.structuredContent, {
      replay: WOULD_RUN,
      tool: 'placeOrder',
      arguments: { qty: 7000, password: '[redacted]', userId: 'alice' },
    });
    assert.deepEqual(venue.called, []);
  });

  it('never executes a write without a recorded result, even with allowReads; a read only with it', async () => {
    const strict = await source();
    const other = await strict.call('placeOrder', { userId: 'bob', qty: 1 }, 'w');
    assert.equal(other.ok, true);
    assert.match(
      textOf(other),
      /^REPLAY: placeOrder would have run with \{"userId":"bob","qty":1\}, but it was not executed/,
    );
    assert.equal(textOf(await strict.call('getOrderBook', {}, 'r')).startsWith('REPLAY: getOrderBook'), true);
    assert.equal(strict.tools.outcomeOf('r'), 'would_run');
    assert.deepEqual(strict.venue.called, []);

    const reads = await source({ allowReads: true });
    assert.equal(textOf(await reads.call('placeOrder', { userId: 'bob', qty: 1 }, 'w')).startsWith('REPLAY:'), true);
    assert.equal(textOf(await reads.call('getOrderBook', {}, 'r')), 'live getOrderBook');
    assert.equal(reads.tools.outcomeOf('r'), 'read_live');
    assert.equal(reads.tools.outcomeOf('w'), 'would_run');
    // A tool the listing does not know is taken for a write.
    assert.equal(textOf(await reads.call('mystery', {}, 'm')).startsWith('REPLAY:'), true);
    assert.deepEqual(reads.venue.called, ['getOrderBook']);
  });

  it('lists the real tools (listing changes nothing) and closes nothing of theirs', async () => {
    const { tools, venue } = await source();
    assert.deepEqual(
      (await tools.listTools()).map((t) => t.name),
      ['placeOrder', 'getOrderBook'],
    );
    await tools.close();
    assert.equal(venue.closed, false);
  });
});
