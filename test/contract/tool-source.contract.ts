// The ToolSource contract (src/core/ports/tool-source.ts): one behaviour suite that
// every source passes — an MCP server (real processes on the official SDK), tools
// defined in code, and the registry combining them. Each offers the same contract
// tools (test/fixtures/mcp/contract-server.ts describes them), so the expectations
// are the same for all: a tool's failure is a result, never an exception; `notSent`
// says the call certainly never reached the tool, and nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  TOOL_NAME_PATTERN,
  ToolgateError,
  isJsonObject,
  type CallToolRequest,
  type ToolErrorCode,
  type ToolResult,
  type ToolSource,
} from '../../src/core/index.ts';

/** The contract's tools by what they do. */
export interface ContractTools {
  /** `{ text }` → answers that text. */
  echo: string;
  /** Answers with the tool's own failure ("the order book is closed"). */
  reportError: string;
  /** Its code throws "out of paper". */
  throws: string;
  /** `{ ms }` → answers after that long, whatever its signal says. */
  slow: string;
  /** Dies while the call is in flight. */
  crash: string;
}

export interface ToolSourceHarness {
  source: ToolSource;
  /** The contract's tools, named as `source` lists them. */
  tools: ContractTools;
  /**
   * How a call ends whose tool dies in flight: an MCP server's process that
   * exits is `tool_unavailable`; an in-process tool has no process to lose
   * and its failure is `tool_error`.
   */
  crashCode: ToolErrorCode;
  /** Ends what the harness started besides the source. */
  cleanup?: () => Promise<void>;
}

/** A source (or the part of one) that cannot reach its tools at all. */
export interface DownSourceHarness {
  source: ToolSource;
  /** The configured name of the server that is down. */
  server: string;
  /** A tool of the part that is down, named as `source` names it, when its tools are known. */
  tool?: string;
  /** A source combining others: an echo tool (`{ text }`) of a source still up. */
  alive?: string;
  cleanup?: () => Promise<void>;
}

export interface ToolSourceSuite {
  open: () => Promise<ToolSourceHarness>;
  /** Ways this kind of source can be down, by name; none for sources that cannot be down. */
  down?: Record<string, () => Promise<DownSourceHarness>>;
}

/** Long enough for a loaded machine, far shorter than the slow tool's answer. */
const TIMEOUT_MS = 400;
/** A timed-out call must come back near its timeout, not when the tool answers (30 s). */
const TIMEOUT_BOUND_MS = 10_000;
const SLOW = { ms: 30_000 };

/** Calls a tool and checks the result's shape; a call that throws fails the test. */
export async function call(source: ToolSource, request: CallToolRequest): Promise<ToolResult> {
  let result: ToolResult;
  try {
    result = await source.callTool(request);
  } catch (error) {
    assert.fail(`callTool("${request.name}") threw instead of answering with a result: ${String(error)}`);
  }
  assert.equal(typeof result.ok, 'boolean', 'ok is a boolean');
  assert.ok(Array.isArray(result.content), 'content is an array');
  if (!result.ok) {
    assert.ok(result.error !== undefined, 'ok: false always has error');
    assert.equal(typeof result.error.code, 'string');
    assert.ok(typeof result.error.message === 'string' && result.error.message !== '', 'the error says what happened');
  }
  return result;
}

/** A failure with this code; `notSent` as given (true: certainly never reached the tool; false: it may have). */
export function assertFailure(result: ToolResult, code: ToolErrorCode, notSent: boolean): void {
  assert.equal(result.ok, false, `expected ${code}, got a success: ${JSON.stringify(result.content)}`);
  assert.equal(result.error?.code, code, `expected ${code}, got ${result.error?.code}: ${result.error?.message}`);
  if (notSent) assert.equal(result.notSent, true, `${code}: the call never reached the tool, so notSent must say so`);
  else
    assert.notEqual(
      result.notSent,
      true,
      `${code}: the call reached the tool, so it may have happened: notSent must not be set`,
    );
}

function textOf(result: ToolResult): string {
  return result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}

async function withSource(suite: ToolSourceSuite, work: (harness: ToolSourceHarness) => Promise<void>): Promise<void> {
  const harness = await suite.open();
  try {
    await work(harness);
  } finally {
    await harness.source.close();
    await harness.cleanup?.();
  }
}

/** Defines `describe(name)` with the ToolSource contract. */
export function toolSourceContract(name: string, suite: ToolSourceSuite): void {
  describe(name, () => {
    it('lists its tools as specs every model API and the gate can use', () =>
      withSource(suite, async ({ source, tools }) => {
        const specs = await source.listTools();
        const names = specs.map((s) => s.name);
        assert.equal(new Set(names).size, names.length, `names are unique: ${names.join(', ')}`);
        for (const role of Object.values(tools))
          assert.ok(names.includes(role), `${role} is listed among ${names.join(', ')}`);
        for (const spec of specs) {
          assert.match(spec.name, TOOL_NAME_PATTERN);
          assert.equal(typeof spec.description, 'string');
          assert.ok(isJsonObject(spec.inputSchema), `${spec.name}: the input schema is an object`);
          assert.equal(spec.inputSchema['type'], 'object', `${spec.name}: tool arguments are an object`);
          assert.ok(['mcp', 'local', 'builtin'].includes(spec.origin.kind));
          assert.ok(
            spec.origin.server !== '' && spec.origin.tool !== '',
            `${spec.name}: the origin names its server and tool`,
          );
          for (const hint of Object.values(spec.annotations ?? {}))
            assert.ok(typeof hint === 'boolean' || typeof hint === 'string');
          if (spec.timeoutMs !== undefined) assert.ok(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0);
        }
        assert.deepEqual(
          (await source.listTools()).map((s) => s.name),
          names,
          'a second listing names the same tools',
        );
      }));

    it('a call that succeeds answers ok with the tool output', () =>
      withSource(suite, async ({ source, tools }) => {
        const result = await call(source, { name: tools.echo, arguments: { text: 'hello' } });
        assert.equal(result.ok, true, JSON.stringify(result.error));
        assert.equal(textOf(result), 'hello');
        assert.equal(result.error, undefined);
        assert.notEqual(result.notSent, true);
      }));

    it("a tool that reports its own failure: tool_error with the tool's words, never an exception", () =>
      withSource(suite, async ({ source, tools }) => {
        const result = await call(source, { name: tools.reportError, arguments: {} });
        assertFailure(result, 'tool_error', false);
        assert.match(result.error?.message ?? '', /the order book is closed/);
      }));

    it('a tool that throws: tool_error with what it threw, never an exception', () =>
      withSource(suite, async ({ source, tools }) => {
        const result = await call(source, { name: tools.throws, arguments: {} });
        assertFailure(result, 'tool_error', false);
        assert.match(result.error?.message ?? '', /out of paper/);
      }));

    it(
      'a tool that dies in flight fails that call alone (it ' +
        'may have happened), and the source serves the next one',
      () =>
        withSource(suite, async ({ source, tools, crashCode }) => {
          const crashed = await call(source, { name: tools.crash, arguments: {} });
          assertFailure(crashed, crashCode, false);
          const next = await call(source, { name: tools.echo, arguments: { text: 'still here' } });
          assert.equal(next.ok, true, JSON.stringify(next.error));
          assert.equal(textOf(next), 'still here');
        }),
    );

    it('an unknown tool: tool_not_found, never an exception', () =>
      withSource(suite, async ({ source }) => {
        const result = await call(source, { name: 'no_such_tool', arguments: {} });
        assert.equal(result.ok, false);
        assert.equal(result.error?.code, 'tool_not_found', result.error?.message);
      }));

    it(
      'a call that outlives its timeout: tool_timeout near the ' +
        'timeout (it may have happened), and the source goes on',
      () =>
        withSource(suite, async ({ source, tools }) => {
          const started = Date.now();
          const result = await call(source, { name: tools.slow, arguments: SLOW, timeoutMs: TIMEOUT_MS });
          const took = Date.now() - started;
          assertFailure(result, 'tool_timeout', false);
          assert.ok(took >= TIMEOUT_MS - 50 && took < TIMEOUT_BOUND_MS, `answered after ${took} ms`);
          assert.match(result.error?.message ?? '', new RegExp(`${TIMEOUT_MS} ms`), 'the message names the limit');
          const next = await call(source, { name: tools.echo, arguments: { text: 'on' } });
          assert.equal(next.ok, true, JSON.stringify(next.error));
        }),
    );

    it('a call cancelled before it starts: cancelled and notSent (it certainly did not happen)', () =>
      withSource(suite, async ({ source, tools }) => {
        const result = await call(source, {
          name: tools.echo,
          arguments: { text: 'never' },
          signal: AbortSignal.abort(),
        });
        assertFailure(result, 'cancelled', true);
      }));

    it('a call cancelled while it runs: cancelled at once, not notSent (it may have happened)', () =>
      withSource(suite, async ({ source, tools }) => {
        await source.listTools();
        const controller = new AbortController();
        const started = Date.now();
        setTimeout(() => controller.abort(new Error('the run was cancelled')), 200);
        const result = await call(source, { name: tools.slow, arguments: SLOW, signal: controller.signal });
        assertFailure(result, 'cancelled', false);
        assert.ok(Date.now() - started < TIMEOUT_BOUND_MS, 'the call did not wait for the tool');
      }));

    it('close() may be called twice; a call after it still answers with a result', () =>
      withSource(suite, async ({ source, tools }) => {
        await call(source, { name: tools.echo, arguments: { text: 'before' } });
        await source.close();
        await source.close();
        await call(source, { name: tools.echo, arguments: { text: 'after' } });
      }));

    for (const [scenario, open] of Object.entries(suite.down ?? {})) {
      describe(`down: ${scenario}`, () => {
        it(
          'fails alone: a call is tool_unavailable and ' + 'notSent; the rest keeps serving; the listing names it',
          async () => {
            const down = await open();
            try {
              await checkDown(down);
            } finally {
              await down.source.close();
              await down.source.close();
              await down.cleanup?.();
            }
          },
        );
      });
    }
  });
}

async function checkDown(down: DownSourceHarness): Promise<void> {
  const { source } = down;
  if (down.tool !== undefined) {
    const result = await call(source, { name: down.tool, arguments: { text: 'x' } });
    assertFailure(result, 'tool_unavailable', true);
    assert.match(result.error?.message ?? '', new RegExp(down.server), 'the message names the server');
  }
  if (source.listing === undefined) {
    // A single source has nothing else to offer: its listing fails, with the cause.
    await assert.rejects(source.listTools(), (error: unknown) => {
      assert.ok(error instanceof ToolgateError, String(error));
      assert.equal(error.code, 'tool_unavailable');
      assert.match(error.message, new RegExp(down.server));
      return true;
    });
    return;
  }
  const listing = await source.listing();
  const missing = listing.unavailable.find((u) => u.server === down.server);
  assert.ok(
    missing !== undefined,
    `the listing names "${down.server}" as unavailable: ${JSON.stringify(listing.unavailable)}`,
  );
  assert.ok(missing.reason !== '', 'with the cause');
  if (down.alive !== undefined) {
    assert.ok(
      listing.tools.some((t) => t.name === down.alive),
      `${down.alive} is still listed`,
    );
    assert.ok(
      (await source.listTools()).some((t) => t.name === down.alive),
      'listTools still answers with the tools of the sources that are up',
    );
    const alive = await call(source, { name: down.alive, arguments: { text: 'alive' } });
    assert.equal(alive.ok, true, JSON.stringify(alive.error));
    assert.equal(textOf(alive), 'alive');
  }
}
