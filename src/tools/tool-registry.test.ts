import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  TOOL_NAME_PATTERN,
  ToolgateError,
  type CallToolRequest,
  type ToolResult,
  type ToolSource,
  type ToolSourceHealth,
  type ToolSpec,
} from '../core/index.ts';
import { ToolRegistry, sanitizeToolName } from './tool-registry.ts';

function source(server: string, names: string[]): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: server,
    calls,
    listTools: async () =>
      names.map((n): ToolSpec => ({
        name: n,
        description: '',
        inputSchema: { type: 'object' },
        origin: { kind: 'mcp', server, tool: n },
      })),
    callTool: async (req): Promise<ToolResult> => {
      calls.push(req);
      return { ok: true, content: [{ type: 'text', text: `${server}:${req.name}` }] };
    },
    close: async () => undefined,
  };
}

describe('ToolRegistry', () => {
  it(
    'prefixes colliding names with the server name and ' + 'routes calls to the right server under its own name',
    async () => {
      const a = source('alpha', ['search', 'only_a']);
      const b = source('beta', ['search', 'fs.read']);
      const registry = new ToolRegistry([a, b]);
      const names = (await registry.listTools()).map((t) => t.name).sort();
      assert.deepEqual(names, ['alpha_search', 'beta_search', 'fs_read', 'only_a']);
      const result = await registry.callTool({ name: 'beta_search', arguments: {} });
      assert.deepEqual(result.content, [{ type: 'text', text: 'beta:search' }]);
      await registry.callTool({ name: 'fs_read', arguments: { p: 1 } });
      assert.deepEqual(
        b.calls.map((c) => c.name),
        ['search', 'fs.read'],
      );
      assert.equal(a.calls.length, 0);
    },
  );

  it('answers an unknown name with tool_not_found instead of throwing', async () => {
    const result = await new ToolRegistry([source('s', ['x'])]).callTool({ name: 'y', arguments: {} });
    assert.equal(result.ok, false);
    assert.equal(result.error?.code, 'tool_not_found');
  });

  it('keeps names unique even when prefixing collides again', async () => {
    const registry = new ToolRegistry([source('s', ['t']), source('s', ['t']), source('s', ['s_t'])]);
    const names = (await registry.listTools()).map((t) => t.name);
    assert.equal(new Set(names).size, names.length, names.join(','));
    for (const n of names) assert.match(n, TOOL_NAME_PATTERN);
  });
});

/** A source whose listing fails while `down` says so, counting attempts; `gate` holds a listing until released. */
function flaky(
  server: string,
  names: string[],
  down: { value: boolean },
): ToolSource & { attempts: number; hold?: Promise<void> } {
  const base = source(server, names);
  const wrapped: ToolSource & { attempts: number; hold?: Promise<void> } = {
    ...base,
    attempts: 0,
    async listTools() {
      wrapped.attempts += 1;
      if (wrapped.hold !== undefined) await wrapped.hold;
      if (down.value)
        throw new ToolgateError(
          'tool_unavailable',
          `could not start MCP server "${server}": Cannot find module '/x/${server}.js'`,
        );
      return base.listTools();
    },
  };
  return wrapped;
}

/** Resolves with the first health change of `server` to `state`. */
function changeTo(
  changes: ToolSourceHealth[],
  listeners: ((h: ToolSourceHealth) => void)[],
  server: string,
  state: string,
): Promise<ToolSourceHealth> {
  const seen = changes.find((h) => h.name === server && h.state === state);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve) => listeners.push((h) => h.name === server && h.state === state && resolve(h)));
}

describe('ToolRegistry: sources fail one at a time', () => {
  it(
    'one of three sources down: the others are listed and ' + 'callable, the missing one is reported with its cause',
    async () => {
      const broken = flaky('beta', ['quote'], { value: true });
      const registry = new ToolRegistry([source('alpha', ['search']), broken, source('gamma', ['report'])], {
        retry: false,
      });
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['search', 'report'],
      );
      const listing = await registry.listing();
      assert.deepEqual(listing.unavailable, [
        { server: 'beta', reason: `could not start MCP server "beta": Cannot find module '/x/beta.js'`, tools: [] },
      ]);
      assert.deepEqual(
        registry.health().map((h) => [h.name, h.state, h.tools, h.failures]),
        [
          ['alpha', 'up', 1, 0],
          ['beta', 'down', 0, 1],
          ['gamma', 'up', 1, 0],
        ],
      );
      assert.match(registry.health()[1]?.error ?? '', /Cannot find module/);
      const result = await registry.callTool({ name: 'report', arguments: {} });
      assert.deepEqual(result.content, [{ type: 'text', text: 'gamma:report' }]);
      assert.equal(broken.attempts, 1, 'without retries, a source that failed is not asked again on every listing');
    },
  );

  it('every source down: listTools rejects with each cause; listing still answers', async () => {
    const registry = new ToolRegistry([flaky('a', ['x'], { value: true }), flaky('b', ['y'], { value: true })], {
      retry: false,
    });
    await assert.rejects(registry.listTools(), (error: unknown) => {
      assert.ok(error instanceof ToolgateError);
      assert.equal(error.code, 'tool_unavailable');
      assert.match(error.message, /^no tool server could be reached: .*"a".*\/x\/a\.js.*; .*"b".*\/x\/b\.js/);
      return true;
    });
    assert.equal((await registry.listing()).unavailable.length, 2);
  });

  it('a source that is down is retried in the background with backoff and its tools come back', async () => {
    const down = { value: true };
    const changes: ToolSourceHealth[] = [];
    const listeners: ((h: ToolSourceHealth) => void)[] = [];
    const beta = flaky('beta', ['quote'], down);
    const registry = new ToolRegistry([source('alpha', ['search']), beta], {
      retry: { initialDelayMs: 1, maxDelayMs: 4 },
      onHealthChange: (h) => {
        changes.push(h);
        for (const l of listeners) l(h);
      },
    });
    try {
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['search'],
      );
      const wentDown = await changeTo(changes, listeners, 'beta', 'down');
      assert.ok(wentDown.retryAt !== undefined, 'a retry is scheduled');
      // Let a few retries fail, then bring the server back.
      while (beta.attempts < 3) await new Promise((r) => setTimeout(r, 1));
      down.value = false;
      const back = await changeTo(changes, listeners, 'beta', 'up');
      assert.equal(back.failures, 0);
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['search', 'quote'],
      );
      assert.deepEqual(
        changes.filter((h) => h.name === 'beta').map((h) => h.state),
        ['down', 'up'],
        'one change each way, however many retries failed',
      );
    } finally {
      await registry.close();
    }
  });

  it(
    "a server that goes down keeps its tools' names (others " + 'are not renamed) and calls to them say it is down',
    async () => {
      const down = { value: false };
      const registry = new ToolRegistry([source('alpha', ['search']), flaky('beta', ['search'], down)], {
        retry: false,
      });
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['alpha_search', 'beta_search'],
      );
      down.value = true;
      registry.refresh();
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['alpha_search'],
      );
      assert.deepEqual(
        (await registry.listing()).unavailable.map((u) => [u.server, u.tools]),
        [['beta', ['beta_search']]],
      );
      const result = await registry.callTool({ name: 'beta_search', arguments: {} });
      assert.equal(result.error?.code, 'tool_unavailable');
      assert.equal(result.notSent, true);
      assert.match(result.error?.message ?? '', /"beta_search" is on "beta", which is down: .*Cannot find module/);
    },
  );

  it(
    'connect waits at most its timeout: a slow source is ' + 'reported down (still trying) and counts once it answers',
    async () => {
      let release = (): void => undefined;
      const slow = flaky('slow', ['later'], { value: false });
      slow.hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      const changes: ToolSourceHealth[] = [];
      const listeners: ((h: ToolSourceHealth) => void)[] = [];
      const registry = new ToolRegistry([source('fast', ['now']), slow], {
        retry: false,
        onHealthChange: (h) => {
          changes.push(h);
          for (const l of listeners) l(h);
        },
      });
      const health = await registry.connect({ timeoutMs: 20 });
      assert.deepEqual(
        health.map((h) => [h.name, h.state]),
        [
          ['fast', 'up'],
          ['slow', 'down'],
        ],
      );
      assert.equal(health[1]?.error, 'no answer within 20 ms (still trying)');
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['now'],
        'a listing does not wait for the slow source',
      );
      release();
      await changeTo(changes, listeners, 'slow', 'up');
      assert.deepEqual(
        (await registry.listTools()).map((t) => t.name),
        ['now', 'later'],
      );
    },
  );

  it(
    'a source that was up but cannot be reached for a call is ' +
      'marked down, left out of listings, and retried until it is back',
    async () => {
      const down = { value: false };
      const changes: ToolSourceHealth[] = [];
      const listeners: ((h: ToolSourceHealth) => void)[] = [];
      const crm = flaky('crm', ['lookup'], down);
      crm.callTool = async () =>
        down.value
          ? {
              ok: false,
              content: [],
              error: {
                code: 'tool_unavailable',
                message: 'could not start MCP server "crm": ECONNREFUSED 127.0.0.1:4000',
              },
              notSent: true,
            }
          : { ok: true, content: [] };
      const registry = new ToolRegistry([source('alpha', ['search']), crm], {
        retry: { initialDelayMs: 1, maxDelayMs: 4 },
        onHealthChange: (h) => {
          changes.push(h);
          for (const l of listeners) l(h);
        },
      });
      try {
        assert.deepEqual(
          (await registry.listTools()).map((t) => t.name),
          ['search', 'lookup'],
        );
        down.value = true;
        const failed = await registry.callTool({ name: 'lookup', arguments: {} });
        assert.equal(failed.error?.code, 'tool_unavailable');
        const wentDown = await changeTo(changes, listeners, 'crm', 'down');
        assert.match(wentDown.error ?? '', /ECONNREFUSED 127\.0\.0\.1:4000/);
        assert.deepEqual(
          (await registry.listTools()).map((t) => t.name),
          ['search'],
          'its tools are no longer offered',
        );
        changes.length = 0;
        down.value = false;
        await changeTo(changes, listeners, 'crm', 'up');
        assert.deepEqual(
          (await registry.listTools()).map((t) => t.name),
          ['search', 'lookup'],
        );
      } finally {
        await registry.close();
      }
    },
  );

  it("a tool's own failure does not mark its source down", async () => {
    const crm = source('crm', ['lookup']);
    crm.callTool = async () => ({ ok: false, content: [], error: { code: 'tool_error', message: 'no such customer' } });
    const registry = new ToolRegistry([crm], { retry: false });
    await registry.callTool({ name: 'lookup', arguments: {} });
    assert.equal(registry.health()[0]?.state, 'up');
  });

  it('a cancelled listing stops waiting for a source that is still starting', async () => {
    const slow = flaky('slow', ['x'], { value: false });
    slow.hold = new Promise<void>(() => undefined);
    const registry = new ToolRegistry([slow], { retry: false });
    const controller = new AbortController();
    const listing = registry.listTools({ signal: controller.signal });
    controller.abort(new Error('run cancelled'));
    await assert.rejects(listing, /run cancelled/);
  });
});

describe('sanitizeToolName', () => {
  it('always yields a name every model API accepts', () => {
    for (const raw of ['ok_name', 'with space', 'dots.and/slashes', 'ünïcode', '', '---', 'x'.repeat(100), 'a:b']) {
      assert.match(sanitizeToolName(raw), TOOL_NAME_PATTERN, raw);
    }
    assert.equal(sanitizeToolName('get-sum'), 'get-sum');
    assert.equal(sanitizeToolName('fs.read'), 'fs_read');
  });
});
