// One conversion for every Standard Schema library: what the model and the gate see.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { createValidator } from '../../validation/index.ts';
import { defineTool } from './define-tool.ts';
import { LocalToolSource } from './local-tool-source.ts';

const validator = createValidator();

/** The converted schema accepts the good arguments and refuses the bad ones, as the gate will check them. */
function checks(schema: Record<string, unknown>, good: Record<string, unknown>, bad: Record<string, unknown>): void {
  assert.deepEqual(validator.validate(schema, good as never), { ok: true }, JSON.stringify(schema));
  assert.equal(validator.validate(schema, bad as never).ok, false, JSON.stringify(schema));
}

describe('Standard Schema → JSON Schema', () => {
  it('zod 4: nested objects, optional fields, enums', () => {
    const tool = defineTool({
      name: 'ship',
      description: 's',
      inputSchema: z.object({
        to: z.object({ city: z.string(), zip: z.string().optional() }),
        speed: z.enum(['slow', 'fast']),
      }),
      effect: 'write',
      execute: () => 'ok',
    });
    assert.deepEqual(tool.inputSchema['required'], ['to', 'speed']);
    checks(tool.inputSchema, { to: { city: 'Oslo' }, speed: 'fast' }, { to: {}, speed: 'warp' });
  });

  it('arktype', () => {
    const tool = defineTool({
      name: 'find',
      description: 'f',
      inputSchema: type({ query: 'string', 'limit?': 'number' }),
      effect: 'read',
      execute: (args) => args.query,
    });
    assert.equal(tool.inputSchema['type'], 'object');
    checks(tool.inputSchema, { query: 'x', limit: 3 }, { limit: 'three' });
  });

  it('valibot, wrapped with toStandardJsonSchema as its docs say, and parsed by valibot on the call', async () => {
    const calls: unknown[] = [];
    const tool = defineTool({
      name: 'book',
      description: 'b',
      inputSchema: toStandardJsonSchema(v.object({ room: v.pipe(v.string(), v.minLength(2)), nights: v.number() })),
      effect: 'write',
      execute: (args) => {
        calls.push(args);
        return 'booked';
      },
    });
    checks(tool.inputSchema, { room: 'A1', nights: 2 }, { room: 'A', nights: 2 });
    const result = await new LocalToolSource({ tools: [tool] }).callTool({
      name: 'book',
      arguments: { room: 'A1', nights: 2 },
    });
    assert.equal(result.ok, true);
    assert.deepEqual(calls, [{ room: 'A1', nights: 2 }]);
  });

  it('plain valibot, which cannot describe itself, is refused with the fix', () => {
    assert.throws(
      () =>
        defineTool({
          name: 'book',
          description: 'b',
          inputSchema: v.object({ room: v.string() }),
          effect: 'write',
          execute: () => 'x',
        }),
      new RegExp(
        String.raw`the inputSchema of tool "book" is a valibot schema ` +
          String.raw`that cannot describe itself as JSON Schema: wrap it with toStandardJsonSchema\(\) ` +
          String.raw`from @valibot\/to-json-schema, or pass a JSON Schema object instead`,
      ),
    );
  });

  it('a JSON Schema passes through unchanged', () => {
    const schema = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
    assert.deepEqual(
      defineTool({ name: 'get', description: 'g', inputSchema: schema, effect: 'read', execute: () => 'x' })
        .inputSchema,
      schema,
    );
  });
});
