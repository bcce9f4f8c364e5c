import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { bodyText, ToolsJson } from './tools-json.ts';

/** Definitions whose schema counts how often JSON.stringify writes it (it calls toJSON each time). */
function counted(serialised: { count: number }): ModelToolDefinition[] {
  return ['quote', 'place_bid'].map((name) => ({
    name,
    description: `${name} tool`,
    parameters: {
      toJSON() {
        serialised.count += 1;
        return { type: 'object', properties: { area: { type: 'string' } } };
      },
    } as unknown as ModelToolDefinition['parameters'],
  }));
}

const wire = new ToolsJson((t) => ({ name: t.name, schema: t.parameters }));

describe('ToolsJson', () => {
  it('writes an array of definitions once, at its first body, and again only for another array', () => {
    const serialised = { count: 0 };
    const tools = counted(serialised);
    const first = wire.bodyText({ model: 'm', messages: [] }, tools);
    assert.equal(serialised.count, 2);
    const second = wire.bodyText({ model: 'm', messages: [{ role: 'user', content: 'more' }] }, tools);
    assert.equal(serialised.count, 2, 'the second body reuses the text');
    assert.deepEqual(JSON.parse(second), {
      model: 'm',
      messages: [{ role: 'user', content: 'more' }],
      tools: [
        { name: 'quote', schema: { type: 'object', properties: { area: { type: 'string' } } } },
        { name: 'place_bid', schema: { type: 'object', properties: { area: { type: 'string' } } } },
      ],
    });
    assert.deepEqual(JSON.parse(first).tools, JSON.parse(second).tools);
    wire.bodyText({ model: 'm' }, counted(serialised));
    assert.equal(serialised.count, 4);
  });

  it('writes valid JSON for an empty body', () => {
    assert.deepEqual(JSON.parse(wire.bodyText({}, [{ name: 'a', description: '', parameters: { type: 'object' } }])), {
      tools: [{ name: 'a', schema: { type: 'object' } }],
    });
  });

  it(
    'bodyText writes the body whole when the tools are not ' +
      'offered or extraBody sets them, else from the kept text',
    () => {
      const definitions = [{ name: 'a', description: '', parameters: { type: 'object' } }];
      const built: boolean[] = [];
      const build = (withTools: boolean): Record<string, unknown> => {
        built.push(withTools);
        return withTools ? { model: 'm', tools: ['whole'] } : { model: 'm' };
      };
      assert.deepEqual(JSON.parse(bodyText({ tools: wire, definitions, offered: true, extraBody: undefined, build })), {
        model: 'm',
        tools: [{ name: 'a', schema: { type: 'object' } }],
      });
      assert.deepEqual(
        JSON.parse(bodyText({ tools: wire, definitions, offered: false, extraBody: undefined, build })),
        {
          model: 'm',
          tools: ['whole'],
        },
      );
      assert.deepEqual(
        JSON.parse(bodyText({ tools: wire, definitions, offered: true, extraBody: { tools: [] }, build })),
        { model: 'm', tools: ['whole'] },
      );
      assert.deepEqual(built, [false, true, true]);
    },
  );
});
