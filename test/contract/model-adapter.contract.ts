// The ModelAdapter contract: one behaviour suite that every provider adapter
// passes against its own recorded wire answers (test/fixtures/contract/<provider>/).
// The answers carry the same content in every provider's format, so the
// expectations here are the same for all: what toolgate relies on, whatever
// the API.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  ToolgateError,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type Usage,
} from '../../src/core/index.ts';
import { parseJson } from '../../src/core/parse-json.ts';
import { extractFromMessage } from '../../src/parsing/index.ts';

export const CONTRACT_CASES = [
  'text',
  'stream-text',
  'tool-call',
  'stream-parallel-tool-calls',
  'stream-broken-arguments',
  'stream-reasoning',
  'stream-error-midstream',
  'error-401',
  'error-404-model',
  'error-429',
  'error-5xx',
  /** stream-text that stalls after its first pieces, for the abort case. */
  'stalled-stream',
  /** stream-text whose response ends a moment after its last event. */
  'stream-text-late-end',
  /** stream-text whose response never ends after its last event. */
  'stream-text-never-ends',
] as const;
export type ContractCase = (typeof CONTRACT_CASES)[number];

export const TEXT = 'The spot price in DE-LU is 87.40 €/MWh.';
export const REASONING = 'The user wants the DE-LU price; I should call the tool.';
export const BROKEN_ARGUMENTS = '{"area": "DE-LU", "date": "2026-11-2';

export interface ContractHarness {
  name: string;
  /** Queues the provider's answers for these cases, in order. */
  stage(...cases: ContractCase[]): void;
  /** An adapter whose requests get the staged answers. */
  adapter(policy?: { maxRetries?: number }): ModelAdapter;
  /** What the endpoint received so far; undefined for an adapter without a transport (scripted). */
  requests(): { at: number; disconnected: boolean; connection: number }[] | undefined;
  /** Answers staged and not yet used. */
  remaining(): number;
  expected: {
    /** Usage of the text answers (providers count cache tokens differently). */
    textUsage: Usage;
    /** The call ids the answers carry, when the provider sends ids. */
    toolCallId?: string;
    parallelIds?: [string, string];
    /** The 404 message names the fix for this provider. */
    notFoundHint: RegExp;
    /** The provider's own words in its mid-stream error, quoted in ours. */
    streamErrorMessage: string;
    /**
     * Broken arguments arrive as a native call (their raw text unchanged) or in the answer text (Ollama parsed
     * nothing).
     */
    brokenIn: 'native' | 'text';
  };
  close(): Promise<void>;
}

const TOOLS = [
  {
    name: 'get_spot_price',
    description: 'Day-ahead price of a bidding zone',
    parameters: {
      type: 'object',
      properties: { area: { type: 'string' }, date: { type: 'string' } },
      required: ['area'],
    },
  },
];

function ask(stream: boolean): ModelRequest {
  return {
    messages: [
      { role: 'system', content: 'You answer questions about power prices.' },
      { role: 'user', content: 'What is the spot price in DE-LU?' },
    ],
    tools: TOOLS,
    stream,
  };
}

async function streamed(adapter: ModelAdapter): Promise<{ response: ModelResponse; deltas: string[] }> {
  const deltas: string[] = [];
  const response = await adapter.generate(ask(true), { onTextDelta: (text) => deltas.push(text) });
  return { response, deltas };
}

async function failure(promise: Promise<unknown>): Promise<ToolgateError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

function argumentsOf(response: ModelResponse): unknown[] {
  return response.toolCalls.map((call) => parseJson(call.arguments));
}

export function modelAdapterContract(name: string, open: () => Promise<ContractHarness>): void {
  describe(`ModelAdapter contract: ${name}`, async () => {
    const harness = await open();
    after(() => harness.close());
    const expected = harness.expected;
    const transport = harness.requests() !== undefined;

    const served = (n: number): void => {
      const requests = harness.requests();
      if (requests !== undefined) assert.equal(requests.length, n, `${n} request(s) expected`);
      assert.equal(harness.remaining(), 0, 'every staged answer was used');
    };
    const before = (): number => harness.requests()?.length ?? 0;

    it('text: the answer, why it stopped, and its usage', async () => {
      const start = before();
      harness.stage('text');
      const response = await harness.adapter().generate(ask(false));
      assert.equal(response.text, TEXT);
      assert.deepEqual(response.toolCalls, []);
      assert.equal(response.finishReason, 'stop');
      assert.deepEqual(response.usage, expected.textUsage);
      served(start + 1);
    });

    it('streamed text reaches onTextDelta in pieces that add up to the answer', async () => {
      harness.stage('stream-text');
      const { response, deltas } = await streamed(harness.adapter());
      assert.ok(deltas.length > 1, `expected several deltas, got ${deltas.length}`);
      assert.equal(deltas.join(''), TEXT);
      assert.equal(response.text, TEXT);
      assert.equal(response.finishReason, 'stop');
      assert.deepEqual(response.usage, expected.textUsage);
    });

    it('a finished stream leaves its connection to the next call: read to its end, not cancelled', async () => {
      const start = before();
      // The server ends each response a moment after the stream's last event.
      harness.stage('stream-text-late-end', 'stream-text-late-end', 'stream-text-late-end');
      for (let i = 0; i < 3; i++) assert.equal((await streamed(harness.adapter())).response.text, TEXT);
      const requests = harness.requests()?.slice(start);
      if (requests !== undefined) {
        assert.deepEqual(
          requests.map((r) => r.disconnected),
          [false, false, false],
          'every answer was read to its end',
        );
        // fetch may open a second connection while the first goes back to its pool; the third call finds one free.
        assert.ok(
          requests.slice(0, 2).some((r) => r.connection === requests[2]?.connection),
          `the third call reused a connection (connections: ${requests.map((r) => r.connection).join(', ')})`,
        );
      }
    });

    it(
      'a stream whose response never ends after its last event ' +
        'still answers, after a short grace; the connection is let go',
      async () => {
        const start = before();
        harness.stage('stream-text-never-ends');
        const began = Date.now();
        assert.equal((await streamed(harness.adapter())).response.text, TEXT);
        assert.ok(Date.now() - began < 2_000, `answered after ${Date.now() - began} ms`);
        const request = harness.requests()?.[start];
        if (request !== undefined) {
          for (let i = 0; i < 100 && !request.disconnected; i++)
            await new Promise((resolve) => setTimeout(resolve, 10));
          assert.equal(request.disconnected, true, 'the connection was closed, not left open');
        }
      },
    );

    it('one tool call: name, arguments as JSON text, an id, finish reason tool_calls', async () => {
      harness.stage('tool-call');
      const response = await harness.adapter().generate(ask(false));
      assert.equal(response.text, 'Let me check the price.');
      assert.equal(response.toolCalls.length, 1);
      assert.equal(response.toolCalls[0]?.name, 'get_spot_price');
      assert.deepEqual(argumentsOf(response), [{ area: 'DE-LU' }]);
      assert.ok((response.toolCalls[0]?.id ?? '') !== '', 'every call has an id');
      if (expected.toolCallId !== undefined) assert.equal(response.toolCalls[0]?.id, expected.toolCallId);
      assert.equal(response.finishReason, 'tool_calls');
    });

    it('parallel tool calls, streamed: both, in order, with distinct ids', async () => {
      harness.stage('stream-parallel-tool-calls');
      const { response, deltas } = await streamed(harness.adapter());
      assert.equal(deltas.join(''), 'Checking both areas.');
      assert.deepEqual(
        response.toolCalls.map((c) => c.name),
        ['get_spot_price', 'get_spot_price'],
      );
      assert.deepEqual(argumentsOf(response), [{ area: 'DE-LU' }, { area: 'FR' }]);
      const ids = response.toolCalls.map((c) => c.id);
      assert.equal(new Set(ids).size, 2);
      if (expected.parallelIds !== undefined) assert.deepEqual(ids, expected.parallelIds);
      assert.equal(response.finishReason, 'tool_calls');
    });

    it('broken arguments pass through unrepaired; the parser never makes a cut-off call executable', async () => {
      harness.stage('stream-broken-arguments');
      const { response } = await streamed(harness.adapter());
      assert.equal(response.finishReason, 'length');
      if (expected.brokenIn === 'native') {
        assert.equal(response.toolCalls.length, 1);
        assert.equal(
          response.toolCalls[0]?.arguments,
          BROKEN_ARGUMENTS,
          'the adapter passes the text on byte for byte',
        );
      } else {
        assert.deepEqual(response.toolCalls, []);
        assert.match(response.text, /get_spot_price/);
      }
      const parsed = extractFromMessage({
        text: response.text,
        toolCalls: response.toolCalls,
        finishReason: response.finishReason,
        tools: TOOLS.map((t) => ({ name: t.name, inputSchema: t.parameters })),
      });
      for (const call of parsed.calls)
        assert.deepEqual(call.arguments, { area: 'DE-LU' }, 'only a complete, repaired call may come out');
      if (parsed.calls.length === 0)
        assert.ok(parsed.diagnostics.length > 0, 'a dropped call is explained to the model');
      assert.ok(!JSON.stringify(parsed.calls).includes('2026-11-2'), 'a cut-off value never reaches a tool');
    });

    it('reasoning is returned apart from the answer and never streamed as answer text', async () => {
      harness.stage('stream-reasoning');
      const { response, deltas } = await streamed(harness.adapter());
      assert.equal(response.reasoning, REASONING);
      assert.equal(response.text, 'I will check.');
      assert.equal(deltas.join(''), 'I will check.');
    });

    it(
      'an error in the middle of a stream fails the call with ' +
        'the provider message, without a retry that would repeat text',
      async () => {
        const start = before();
        harness.stage('stream-error-midstream');
        const deltas: string[] = [];
        const error = await failure(harness.adapter().generate(ask(true), { onTextDelta: (t) => deltas.push(t) }));
        assert.match(error.code, /^model_/);
        assert.ok(
          error.message.includes(expected.streamErrorMessage),
          `${error.message} quotes "${expected.streamErrorMessage}"`,
        );
        assert.equal(deltas.join(''), 'The spot');
        served(start + 1);
      },
    );

    it('401: model_auth at once, naming where the key comes from', async () => {
      const start = before();
      harness.stage('error-401');
      const error = await failure(harness.adapter().generate(ask(false)));
      assert.equal(error.code, 'model_auth');
      assert.match(error.message, /apiKey|API_KEY/);
      served(start + 1);
    });

    it('404 for the model: model_not_found with the fix for this provider', async () => {
      const start = before();
      harness.stage('error-404-model');
      const error = await failure(harness.adapter().generate(ask(false)));
      assert.equal(error.code, 'model_not_found');
      assert.match(error.message, expected.notFoundHint);
      served(start + 1);
    });

    it(
      '429: retried after the Retry-After the server asked for, then the answer',
      { skip: !transport && 'no transport: nothing to retry' },
      async () => {
        const start = before();
        harness.stage('error-429', 'text');
        const response = await harness.adapter({ maxRetries: 2 }).generate(ask(false));
        assert.equal(response.text, TEXT);
        served(start + 2);
        const requests = harness.requests();
        if (requests !== undefined) {
          const [first, second] = requests.slice(start);
          assert.ok(
            second !== undefined && first !== undefined && second.at - first.at >= 900,
            'the retry waited for Retry-After: 1',
          );
        }
      },
    );

    it('429 with no retries left: model_rate_limited', async () => {
      harness.stage('error-429');
      const error = await failure(harness.adapter({ maxRetries: 0 }).generate(ask(false)));
      assert.equal(error.code, 'model_rate_limited');
    });

    it('5xx: retried, then model_unavailable once retries run out', async () => {
      if (!transport) {
        harness.stage('error-5xx');
        assert.equal((await failure(harness.adapter().generate(ask(false)))).code, 'model_unavailable');
        return;
      }
      const start = before();
      harness.stage('error-5xx', 'text');
      assert.equal((await harness.adapter({ maxRetries: 1 }).generate(ask(false))).text, TEXT);
      served(start + 2);
      harness.stage('error-5xx', 'error-5xx');
      const error = await failure(harness.adapter({ maxRetries: 1 }).generate(ask(false)));
      assert.equal(error.code, 'model_unavailable');
      served(start + 4);
      assert.equal(error.details?.['attempts'], 2);
    });

    it('abort mid-stream: cancelled at once, and the connection is let go', async () => {
      const start = before();
      harness.stage('stalled-stream');
      const controller = new AbortController();
      const pending = harness
        .adapter()
        .generate(ask(true), { signal: controller.signal, onTextDelta: () => controller.abort() });
      // An adapter that streams nothing before it stalls is aborted anyway.
      const timer = setTimeout(() => controller.abort(), 500);
      const error = await failure(pending);
      clearTimeout(timer);
      assert.equal(error.code, 'cancelled');
      const requests = harness.requests();
      if (requests !== undefined) {
        const request = requests[start];
        for (let i = 0; i < 100 && request?.disconnected !== true; i++)
          await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(request?.disconnected, true, 'the request was closed');
      }
    });
  });
}
