import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolgateError } from '../../core/index.ts';
import { defineTool, isLocalTool, type LocalTool, type ToolExecutionContext } from './define-tool.ts';
import { LocalToolSource, toToolResult } from './local-tool-source.ts';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  effect: 'read',
  execute: (args) => `echo ${String(args['text'])}`,
});

describe('defineTool', () => {
  it('converts a zod schema to JSON Schema, infers the argument types, and classifies by effect', async () => {
    const seen: unknown[] = [];
    const order = defineTool({
      name: 'placeOrder',
      description: 'Places an order.',
      inputSchema: z.object({
        qty: z.number().int().min(1),
        side: z.enum(['BUY', 'SELL']),
        note: z.string().optional(),
      }),
      effect: 'write',
      execute: (args) => {
        seen.push(args);
        const qty: number = args.qty;
        // @ts-expect-error side is 'BUY' | 'SELL', not a number: the arguments are typed from the schema
        const wrong: number = args.side;
        return { qty, wrong };
      },
    });
    assert.ok(isLocalTool(order));
    assert.equal(order.inputSchema['type'], 'object');
    assert.deepEqual(order.inputSchema['required'], ['qty', 'side']);
    assert.deepEqual((order.inputSchema['properties'] as Record<string, { enum?: unknown }>)['side']?.enum, [
      'BUY',
      'SELL',
    ]);
    assert.equal(order.annotations.readOnlyHint, false, 'a write is annotated as not read-only');
    assert.equal(echo.annotations.readOnlyHint, true);
    const [spec] = await new LocalToolSource({ name: 'shop', tools: [order] }).listTools();
    assert.deepEqual(spec?.origin, { kind: 'local', server: 'shop', tool: 'placeOrder' });
  });

  it('refuses mistakes at definition time, naming the tool and the fix', () => {
    const base = { description: 'd', inputSchema: { type: 'object' }, effect: 'read' as const, execute: () => 'x' };
    assert.throws(
      () => defineTool({ ...base, name: 'get order' }),
      /the name "get order" is not usable: use 1–64 letters/,
    );
    assert.throws(
      () => defineTool({ ...base, name: 'a', effect: 'delete' as 'read' }),
      /tool "a": effect must be 'read' .* or 'write'/,
    );
    assert.throws(
      () => defineTool({ ...base, name: 'a', execute: undefined as unknown as () => string }),
      /tool "a": execute must be a function/,
    );
    assert.throws(
      () => defineTool({ ...base, name: 'a', inputSchema: z.string() }),
      /the inputSchema of tool "a" describes "string", not an object/,
    );
    assert.throws(
      () => defineTool({ ...base, name: 'a', inputSchema: 'object' as unknown as Record<string, unknown> }),
      /must be a JSON Schema object or a Standard Schema/,
    );
    const opaque = { '~standard': { version: 1 as const, vendor: 'homegrown', validate: () => ({ value: {} }) } };
    assert.throws(
      () => defineTool({ ...base, name: 'a', inputSchema: opaque }),
      (error: unknown) =>
        error instanceof ToolgateError &&
        /a homegrown schema that cannot describe itself as JSON Schema: .* or pass a JSON Schema object instead/.test(
          error.message,
        ),
    );
  });

  it('two tools of one name in a source are refused', () => {
    assert.throws(() => new LocalToolSource({ tools: [echo, echo] }), /two tools are named "echo" in "local"/);
  });
});

describe('LocalToolSource.callTool', () => {
  it('maps return values as MCP results map: text, JSON with structured content, MCP results, nothing', () => {
    assert.deepEqual(toToolResult('hi'), { ok: true, content: [{ type: 'text', text: 'hi' }] });
    assert.deepEqual(toToolResult({ a: 1 }), {
      ok: true,
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
    assert.deepEqual(toToolResult([1, 2]), { ok: true, content: [{ type: 'text', text: '[1,2]' }] });
    assert.deepEqual(toToolResult(undefined), { ok: true, content: [] });
    assert.deepEqual(toToolResult({ content: [{ type: 'text', text: 'no stock' }], isError: true }), {
      ok: false,
      content: [{ type: 'text', text: 'no stock' }],
      error: { code: 'tool_error', message: 'no stock' },
    });
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    assert.match(toToolResult(circular).error?.message ?? '', /not JSON/);
    assert.match(toToolResult(10n).error?.message ?? '', /not JSON/);
    assert.match(toToolResult(() => 1).error?.message ?? '', /not JSON \(function\)/);
  });

  it('a thrown error is a tool_error with its message; an unknown name is tool_not_found', async () => {
    const failing = defineTool({
      name: 'boom',
      description: 'fails',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: () => Promise.reject(new Error('warehouse offline')),
    });
    const source = new LocalToolSource({ tools: [failing] });
    const result = await source.callTool({ name: 'boom', arguments: {} });
    assert.deepEqual(result.error, { code: 'tool_error', message: 'warehouse offline' });
    assert.equal((await source.callTool({ name: 'nope', arguments: {} })).error?.code, 'tool_not_found');
  });

  it('execute gets the run, the call, the tenant, the user and the context, and a live signal', async () => {
    let ctx: ToolExecutionContext | undefined;
    const probe = defineTool({
      name: 'probe',
      description: 'p',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: (_args, c) => ((ctx = c), 'ok'),
    });
    const source = new LocalToolSource({ tools: [probe] });
    await source.callTool({
      name: 'probe',
      arguments: {},
      invocation: {
        runId: 'run_1',
        toolCallId: 'call_1',
        tenantId: 'acme',
        userId: 'bob',
        context: { account: 'A-9' },
      },
    });
    assert.deepEqual(
      { ...ctx, signal: undefined },
      {
        runId: 'run_1',
        toolCallId: 'call_1',
        tenantId: 'acme',
        userId: 'bob',
        context: { account: 'A-9' },
        signal: undefined,
      },
    );
    assert.equal(ctx?.signal.aborted, false);
    await source.callTool({ name: 'probe', arguments: {} });
    assert.deepEqual([ctx?.runId, ctx?.toolCallId, ctx?.context], ['', '', {}], 'outside a run');
  });

  it(
    'a call that outlives its timeout is tool_timeout even ' +
      'when execute ignores its signal, and the signal is aborted',
    async () => {
      let signal: AbortSignal | undefined;
      const stuck = defineTool({
        name: 'stuck',
        description: 's',
        inputSchema: { type: 'object' },
        effect: 'write',
        execute: (_a, c) => ((signal = c.signal), new Promise(() => undefined)),
      });
      const result = await new LocalToolSource({ tools: [stuck] }).callTool({
        name: 'stuck',
        arguments: {},
        timeoutMs: 20,
      });
      assert.equal(result.error?.code, 'tool_timeout');
      assert.match(result.error?.message ?? '', /did not finish within 20 ms/);
      assert.notEqual(result.notSent, true, 'it ran: the outcome of a write is unknown');
      assert.equal(signal?.aborted, true);
    },
  );

  it(
    'cancelling the call aborts execute and answers ' + 'cancelled; a call cancelled before it starts never runs',
    async () => {
      let started = 0;
      const slow = defineTool({
        name: 'slow',
        description: 's',
        inputSchema: { type: 'object' },
        effect: 'read',
        execute: (_a, c) => {
          started++;
          return new Promise((_resolve, reject) =>
            c.signal.addEventListener('abort', () => reject(new Error('aborted inside'))),
          );
        },
      });
      const source = new LocalToolSource({ tools: [slow] });
      const controller = new AbortController();
      const pending = source.callTool({ name: 'slow', arguments: {}, signal: controller.signal });
      controller.abort();
      assert.equal((await pending).error?.code, 'cancelled');
      const before = await source.callTool({ name: 'slow', arguments: {}, signal: AbortSignal.abort() });
      assert.deepEqual([before.error?.code, before.notSent], ['cancelled', true]);
      assert.equal(started, 1);
    },
  );

  it(
    'the signal is made when first read: read after the ' +
      'timeout or a cancel, it is already aborted, with the reason',
    async () => {
      const seen: ToolExecutionContext[] = [];
      // Never looks at its signal while it runs.
      const deaf = defineTool({
        name: 'deaf',
        description: 'd',
        inputSchema: { type: 'object' },
        effect: 'read',
        execute: (_a, c) => (seen.push(c), new Promise(() => undefined)),
      });
      const source = new LocalToolSource({ tools: [deaf] });
      assert.equal((await source.callTool({ name: 'deaf', arguments: {}, timeoutMs: 10 })).error?.code, 'tool_timeout');
      assert.equal(seen[0]?.signal.aborted, true);
      assert.match(String((seen[0]?.signal.reason as Error | undefined)?.message), /timed out after 10 ms/);
      const controller = new AbortController();
      const pending = source.callTool({ name: 'deaf', arguments: {}, signal: controller.signal });
      controller.abort(new Error('user left'));
      assert.equal((await pending).error?.code, 'cancelled');
      assert.equal(seen[1]?.signal.aborted, true);
      assert.equal((seen[1]?.signal.reason as Error | undefined)?.message, 'user left');
    },
  );

  it('a tool that throws at once is a tool_error; a value that is not JSON is a tool_error too', async () => {
    const sync = defineTool({
      name: 'sync',
      description: 's',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: () => {
        throw new Error('no stock table');
      },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const odd = defineTool({
      name: 'odd',
      description: 'o',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: () => cyclic,
    });
    const source = new LocalToolSource({ tools: [sync, odd] });
    assert.deepEqual((await source.callTool({ name: 'sync', arguments: {} })).error, {
      code: 'tool_error',
      message: 'no stock table',
    });
    const notJson = await source.callTool({ name: 'odd', arguments: {} });
    assert.equal(notJson.error?.code, 'tool_error');
    assert.match(notJson.error?.message ?? '', /not JSON/);
  });

  it('an asynchronous Standard Schema is waited for; one that throws refuses the call unsent', async () => {
    const calls: unknown[] = [];
    const checked = defineTool({
      name: 'checked',
      description: 'c',
      inputSchema: z
        .object({ code: z.string() })
        .refine(async (v) => Promise.resolve(v.code !== 'bad'), { message: 'unknown code', path: ['code'] }),
      effect: 'read',
      execute: (args) => (calls.push(args), 'ok'),
    });
    const source = new LocalToolSource({ tools: [checked] });
    assert.equal((await source.callTool({ name: 'checked', arguments: { code: 'good' } })).ok, true);
    const refused = await source.callTool({ name: 'checked', arguments: { code: 'bad' } });
    assert.deepEqual([refused.error?.code, refused.notSent], ['invalid_arguments', true]);
    assert.match(refused.error?.message ?? '', /code: unknown code/);
    assert.deepEqual(calls, [{ code: 'good' }]);
    const throwing = defineTool({
      name: 'throwing',
      description: 't',
      inputSchema: z.object({}),
      effect: 'read',
      execute: () => 'ran',
    });
    const broken = {
      ...throwing,
      standard: {
        '~standard': {
          version: 1 as const,
          vendor: 'test',
          validate: () => {
            throw new Error('schema bug');
          },
        },
      },
    } as unknown as LocalTool;
    const answer = await new LocalToolSource({ tools: [broken] }).callTool({ name: 'throwing', arguments: {} });
    assert.deepEqual([answer.error?.code, answer.notSent], ['invalid_arguments', true]);
    assert.match(answer.error?.message ?? '', /could not check them \(schema bug\)/);
  });

  it(
    'a Standard Schema parses the arguments: execute gets its output; ' +
      'a refinement JSON Schema cannot express refuses the call unsent',
    async () => {
      const calls: unknown[] = [];
      const transfer = defineTool({
        name: 'transfer',
        description: 't',
        inputSchema: z
          .object({
            amount: z.number(),
            currency: z
              .string()
              .default('EUR')
              .transform((c) => c.toUpperCase()),
          })
          .refine((v) => v.amount !== 13, { message: 'unlucky amount', path: ['amount'] }),
        effect: 'write',
        execute: (args) => {
          calls.push(args);
          return 'sent';
        },
      });
      const source = new LocalToolSource({ tools: [transfer] });
      assert.equal((await source.callTool({ name: 'transfer', arguments: { amount: 5, currency: 'usd' } })).ok, true);
      assert.deepEqual(calls, [{ amount: 5, currency: 'USD' }]);
      const refused = await source.callTool({ name: 'transfer', arguments: { amount: 13 } });
      assert.deepEqual([refused.ok, refused.error?.code, refused.notSent], [false, 'invalid_arguments', true]);
      assert.match(refused.error?.message ?? '', /amount: unlucky amount/);
      assert.equal(calls.length, 1, 'execute was not called');
    },
  );
});
