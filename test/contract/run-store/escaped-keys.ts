import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft } from '../../../src/core/index.ts';
import { newRun, withStore, type RunStoreFactory } from './harness.ts';

/**
 * Keys that need an escape come back as they went in. V8's JSON.parse can
 * rename them (nodejs/node#63785: once a "\\" key of the same shape was read,
 * "\n" or "\"" reads back as "\\"), and tool arguments and output hold such keys.
 */
export function escapedKeysContract(factory: RunStoreFactory): void {
  describe('escaped keys', () => {
    it('event data and context keep keys like "\\\\", "\\n" and "\\"" whatever was read before', () =>
      withStore(factory, async (store) => {
        const context = { '/': {}, '\n': 'newline', '"': 'quote' };
        const run = await store.createRun(newRun({ context }));
        const shapes = [
          { '/': {}, '\\': 'backslash' },
          { '/': {}, '\n': 'newline' },
          { '/': {}, '"': 'quote' },
          { '/': {}, '\t': 'tab' },
        ];
        await store.append(
          run.id,
          shapes.map((args, i) => draft('tool_call', { step: 1, toolCallId: `call_${i}`, name: 'x', arguments: args })),
        );
        // Read twice: the second read comes after the first has shown the parser every shape.
        for (let pass = 0; pass < 2; pass++) {
          const events = await store.readEvents(run.id);
          assert.deepEqual(
            events.map((e) => (e.type === 'tool_call' ? Object.keys(e.data.arguments) : [])),
            shapes.map((s) => Object.keys(s)),
          );
          // Sorted: a store may keep an object's keys in its own order (PostgreSQL's jsonb does).
          assert.deepEqual(
            Object.keys((await store.getRun(run.id))?.context ?? {}).sort(),
            Object.keys(context).sort(),
          );
        }
      }));
  });
}
