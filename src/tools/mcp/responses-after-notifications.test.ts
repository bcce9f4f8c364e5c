import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { deliverResponsesAfterNotifications } from './responses-after-notifications.ts';

/**
 * A server on the other end of a pipe that delivers a tool call's last progress notification and its result in one
 * read, as a stdio chunk does: both reach the client in the same tick.
 */
class OneChunkServer implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('method' in message) || !('id' in message)) return;
    const params = message.params ?? {};
    if (message.method === 'initialize') {
      const version = typeof params['protocolVersion'] === 'string' ? params['protocolVersion'] : '2025-06-18';
      const result = { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
      this.onmessage?.({ jsonrpc: '2.0', id: message.id, result });
      return;
    }
    const meta = params['_meta'];
    const token = typeof meta === 'object' && meta !== null && 'progressToken' in meta ? meta.progressToken : 0;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : 0;
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: 1 } });
    this.onmessage?.({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'done' }] } });
  }
}

async function progressSeen(fixed: boolean): Promise<number> {
  const transport = new OneChunkServer();
  const client = new Client({ name: 'test', version: '1' });
  client.onerror = () => undefined;
  await client.connect(transport);
  if (fixed) deliverResponsesAfterNotifications(transport);
  let seen = 0;
  const result = await client.callTool({ name: 'slow', arguments: {} }, { onprogress: () => void (seen += 1) });
  await client.close();
  assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
  return seen;
}

describe('deliverResponsesAfterNotifications', () => {
  it('a progress notification read in one chunk with its result still reaches onprogress', async () => {
    assert.equal(await progressSeen(true), 1);
  });

  it('(the SDK alone drops it: the reason for the fix, so the fix goes when the SDK no longer needs it)', async () => {
    assert.equal(await progressSeen(false), 0);
  });
});
