// A multi-step task with an approval through each model API, end to end: a
// real `toolgate serve` (SQLite, the power-exchange MCP server) talking to a
// local mock of OpenAI's, Anthropic's or Ollama's API. The mocks check every
// request the way the real API does (an Anthropic tool_use without its
// tool_result, string arguments to Ollama… are refused), so a wrong mapping
// fails here, not in production.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { startMockAnthropic } from '../support/mock-anthropic-server.ts';
import { startMockOllama } from '../support/mock-ollama-server.ts';
import { startMockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli, startServe } from '../support/processes.ts';

const KEY = 'e2e-key-0123456789';
const ORDER = { userId: 'bob', side: 'BUY', price: 90, qty: 1, symbol: 'DE-BASE-D+1' };

/** The same three turns in every API: read the market, place an order (approval), answer. */
function turn(request: RecordedRequest): {
  text?: string;
  toolCalls?: { id?: string; name: string; arguments: string }[];
} {
  const messages = (request.body?.messages ?? []) as { role: string }[];
  const done = messages.filter((m) => m.role === 'assistant').length;
  if (done === 0)
    return {
      text: 'Checking the market.',
      toolCalls: [{ id: 'toolu_e2e_metrics', name: 'getMarketMetrics', arguments: '{}' }],
    };
  if (done === 1)
    return { toolCalls: [{ id: 'toolu_e2e_order', name: 'placeOrder', arguments: JSON.stringify(ORDER) }] };
  return { text: 'Bought 1 MWh for bob.' };
}

interface Api {
  name: string;
  model: string;
  /** The `providers:` entry for the mock. */
  provider: string;
  requests: RecordedRequest[];
  /** What the request after a tool call must carry back, in this API's own shape. */
  checkToolResults: (requests: RecordedRequest[]) => void;
  close: () => Promise<void>;
}

const APIS: { name: string; start: () => Promise<Api> }[] = [
  {
    name: 'openai',
    start: async () => {
      const mock = await startMockOpenAI({ handler: turn });
      return {
        name: 'openai',
        model: 'openai:gpt-4o-mini',
        provider: `openai: { baseUrl: "${mock.url}", apiKey: sk-test, maxRetries: 0 }`,
        requests: mock.requests,
        checkToolResults: (requests) => {
          const messages = requests[1]?.body.messages as { role: string; tool_call_id?: string }[];
          assert.equal(messages.find((m) => m.role === 'tool')?.tool_call_id, 'toolu_e2e_metrics');
          assert.equal(requests[0]?.headers.authorization, 'Bearer sk-test');
        },
        close: () => mock.close(),
      };
    },
  },
  {
    name: 'anthropic',
    start: async () => {
      const mock = await startMockAnthropic({ handler: turn, apiKey: 'sk-ant-test' });
      return {
        name: 'anthropic',
        model: 'anthropic:claude-sonnet-4-5',
        provider: `anthropic: { baseUrl: "${mock.url}", apiKey: sk-ant-test, maxRetries: 0 }`,
        requests: mock.requests,
        checkToolResults: (requests) => {
          const body = requests[2]?.body as { system?: unknown; messages: { role: string; content: unknown }[] };
          assert.equal(body.system, 'You trade power for the desk.', 'system prompts go in the top-level system field');
          assert.ok(body.messages.every((m) => m.role === 'user' || m.role === 'assistant'));
          const results = body.messages
            .flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; tool_use_id?: string }[]) : []))
            .filter((b) => b.type === 'tool_result');
          assert.deepEqual(
            results.map((b) => b.tool_use_id),
            ['toolu_e2e_metrics', 'toolu_e2e_order'],
          );
          const uses = body.messages
            .flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; input?: unknown }[]) : []))
            .filter((b) => b.type === 'tool_use');
          assert.deepEqual(uses[1]?.input, ORDER, 'tool_use input is the arguments as an object');
        },
        close: () => mock.close(),
      };
    },
  },
  {
    name: 'ollama',
    start: async () => {
      const mock = await startMockOllama({ handler: turn, models: ['qwen2.5:7b'] });
      return {
        name: 'ollama',
        model: 'ollama:qwen2.5:7b',
        provider: `ollama: { host: "${mock.url}", maxRetries: 0 }`,
        requests: mock.requests,
        checkToolResults: (requests) => {
          const body = requests[2]?.body as {
            stream?: boolean;
            messages: { role: string; tool_name?: string; tool_calls?: { function: { arguments: unknown } }[] }[];
          };
          assert.equal(body.stream, true, 'stream is always sent explicitly');
          assert.deepEqual(
            body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_name),
            ['getMarketMetrics', 'placeOrder'],
          );
          const calls = body.messages.flatMap((m) => m.tool_calls ?? []);
          assert.deepEqual(calls[1]?.function.arguments, ORDER, 'arguments go back as objects');
        },
        close: () => mock.close(),
      };
    },
  },
  {
    name: 'a named OpenAI-compatible endpoint',
    start: async () => {
      const mock = await startMockOpenAI({ handler: turn });
      return {
        name: 'vllm',
        model: 'vllm:Qwen/Qwen2.5-7B-Instruct',
        provider: `vllm: { type: openai, baseUrl: "${mock.url}", apiKey: vllm-key, maxRetries: 0 }`,
        requests: mock.requests,
        checkToolResults: (requests) => {
          assert.equal(requests[0]?.body.model, 'Qwen/Qwen2.5-7B-Instruct');
          assert.equal(requests[0]?.headers.authorization, 'Bearer vllm-key');
        },
        close: () => mock.close(),
      };
    },
  },
];

describe('providers e2e: a task with an approval through each model API', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  for (const entry of APIS) {
    it(`${entry.name}: read, then a write approved over HTTP, then the answer`, async () => {
      const api = await entry.start();
      const dir = mkdtempSync(join(tmpdir(), `toolgate-providers-${api.name}-`));
      dirs.push(dir);
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `model: ${api.model}
systemPrompt: You trade power for the desk.
models: ["${api.name}:*"]
providers:
  ${api.provider}
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
tools:
  "power-exchange/placeOrder": { approval: required }
tenants:
  acme:
    apiKeys: ["${KEY}"]
server:
  store: sqlite:./runs.db
`,
      );
      const server = await startServe({ cwd: dir });
      const call = (path: string, init: RequestInit = {}): Promise<Response> =>
        fetch(`${server.url}${path}`, {
          ...init,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        });
      const waitFor = async (id: string, statuses: string[]): Promise<Run> => {
        for (let i = 0; i < 400; i++) {
          const run = (await (await call(`/v1/runs/${id}`)).json()) as Run;
          if (statuses.includes(run.status)) return run;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.fail(`run ${id} did not reach ${statuses.join('|')}`);
      };
      try {
        const models = (await (await call('/v1/models')).json()) as { default?: string; models: string[] };
        assert.equal(models.default, api.model);
        // The allowed-models list speaks of this provider: another provider's model is refused before any run exists.
        const other = api.name === 'anthropic' ? 'ollama:qwen2.5:7b' : 'anthropic:claude-sonnet-4-5';
        const refused = await call('/v1/runs', { method: 'POST', body: JSON.stringify({ input: 'hi', model: other }) });
        assert.equal(refused.status, 400);
        assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'model_not_allowed');

        const created = await call('/v1/runs', {
          method: 'POST',
          body: JSON.stringify({ input: 'Buy 1 MWh for bob if the market is open.' }),
        });
        assert.equal(created.status, 201, await created.clone().text());
        const run = (await created.json()) as Run;
        assert.equal(run.model, api.model);
        const waiting = await waitFor(run.id, ['waiting_approval', 'failed']);
        assert.equal(waiting.status, 'waiting_approval', JSON.stringify(waiting.error));
        assert.equal(waiting.pendingApproval?.name, 'placeOrder');
        assert.equal(api.requests.length, 2, 'nothing more is asked of the model while the write waits');

        const decided = await call(`/v1/runs/${run.id}/input`, {
          method: 'POST',
          body: JSON.stringify({
            type: 'approval',
            toolCallId: waiting.pendingApproval?.toolCallId,
            decision: 'approve',
          }),
        });
        assert.equal(decided.status, 202, await decided.clone().text());
        const done = await waitFor(run.id, ['completed', 'failed']);
        assert.equal(done.status, 'completed', JSON.stringify(done.error));
        assert.equal(done.output, 'Bought 1 MWh for bob.');

        const events = ((await (await call(`/v1/runs/${run.id}/events?format=json`)).json()) as { events: RunEvent[] })
          .events;
        const results = ofType(events, 'tool_result');
        assert.deepEqual(
          results.map((e) => [e.data.name, e.data.error === undefined]),
          [
            ['getMarketMetrics', true],
            ['placeOrder', true],
          ],
        );
        assert.equal(
          ofType(events, 'assistant_delta')
            .map((e) => e.data.text)
            .join(''),
          'Checking the market.Bought 1 MWh for bob.',
          'the answers streamed',
        );
        assert.equal(api.requests.length, 3);
        api.checkToolResults(api.requests);
      } finally {
        await server.stop();
        await api.close();
      }
    });
  }
});

describe('providers e2e: the command lines of the README', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const store = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-providers-cli-'));
    dirs.push(dir);
    return `sqlite:${join(dir, 'runs.db')}`;
  };
  const readThenAnswer = (request: RecordedRequest) => {
    const done = ((request.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'assistant').length;
    return done === 0
      ? { toolCalls: [{ name: 'getMarketMetrics', arguments: '{}' }] }
      : { text: 'The market is open.' };
  };
  const mcp = `node ${POWER_EXCHANGE_SERVER}`;

  it('anthropic:<model> with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL', async () => {
    const mock = await startMockAnthropic({ handler: readThenAnswer, apiKey: 'sk-ant-env' });
    try {
      const result = await runCli(
        ['run', 'How is the market?', '--model', 'anthropic:claude-sonnet-4-5', '--mcp', mcp, '--store', store()],
        {
          env: { ANTHROPIC_API_KEY: 'sk-ant-env', ANTHROPIC_BASE_URL: mock.url },
        },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /The market is open\./);
      assert.equal(mock.requests.length, 2);
      assert.equal(mock.requests[0]?.headers['x-api-key'], 'sk-ant-env');
    } finally {
      await mock.close();
    }
  });

  it('ollama:<model> with OLLAMA_HOST as Ollama reads it (host:port, no scheme)', async () => {
    const mock = await startMockOllama({ handler: readThenAnswer, models: ['qwen2.5:7b'] });
    try {
      const host = mock.url.replace(/^http:\/\//, '');
      const result = await runCli(
        ['run', 'How is the market?', '--model', 'ollama:qwen2.5:7b', '--mcp', mcp, '--store', store()],
        { env: { OLLAMA_HOST: host } },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /The market is open\./);
      assert.equal(mock.requests.length, 2);
    } finally {
      await mock.close();
    }
  });

  it('a model that is not pulled fails with the ollama pull command', async () => {
    const mock = await startMockOllama({ models: ['qwen2.5:7b'] });
    try {
      const result = await runCli([
        'run',
        'hi',
        '--model',
        'ollama:llama3.2:3b',
        '--base-url',
        mock.url,
        '--store',
        store(),
      ]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /model_not_found/);
      assert.match(result.stderr, /ollama pull llama3\.2:3b/);
      assert.equal(mock.remaining(), 0);
    } finally {
      await mock.close();
    }
  });

  it(
    'a model without tools: auto falls back to prompting, ' + 'and --constrain holds the output to the call schema',
    async () => {
      const mock = await startMockOllama({
        models: ['phi3'],
        noTools: ['phi3'],
        handler: (request) => {
          const done = ((request.body?.messages ?? []) as { role: string }[]).filter(
            (m) => m.role === 'assistant',
          ).length;
          return done === 0
            ? { text: '{"name": "getMarketMetrics", "arguments": {}}' }
            : { text: 'The market is open.' };
        },
      });
      try {
        const result = await runCli([
          'run',
          'How is the market?',
          '--model',
          'ollama:phi3',
          '--tool-mode',
          'auto',
          '--constrain',
          '--mcp',
          mcp,
          '--base-url',
          mock.url,
          '--store',
          store(),
        ]);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /The market is open\./);
        // The refused request carried tools; the ones after it describe them in the prompt, with the schema as
        // `format`.
        const bodies = mock.requests.map(
          (r) =>
            r.body as { tools?: unknown[]; format?: { type?: string }; messages: { role: string; content: string }[] },
        );
        assert.ok((bodies[0]?.tools?.length ?? 0) > 0);
        const prompted = bodies.slice(1);
        assert.ok(prompted.length >= 2);
        for (const body of prompted) {
          assert.equal(body.tools, undefined);
          assert.equal(body.format?.type, 'object');
          assert.match(body.messages[0]?.content ?? '', /getMarketMetrics/);
        }
      } finally {
        await mock.close();
      }
    },
  );
});

describe('providers e2e: toolgate serve checks its default model before it starts', () => {
  it('an unknown provider or an endpoint variable that is not a URL exits 2 with the fix', async () => {
    const typo = await runCli(['serve', '--port', '0', '--model', 'antropic:claude-sonnet-4-5', '--store', 'memory:']);
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(
      typo.stderr,
      /unknown model provider "antropic" in "antropic:claude-sonnet-4-5" \(did you mean "anthropic"\?\)/,
    );
    const badHost = await runCli(
      ['serve', '--port', '0', '--model', 'anthropic:claude-sonnet-4-5', '--store', 'memory:'],
      { env: { ANTHROPIC_BASE_URL: 'api.anthropic.com' } },
    );
    assert.equal(badHost.code, 2, badHost.stderr);
    assert.match(
      badHost.stderr,
      new RegExp(
        String.raw`the anthropic endpoint "api\.anthropic\.com" must start with http:\/\/ ` +
          String.raw`or https:\/\/, e\.g\. https:\/\/api\.anthropic\.com .*ANTHROPIC_BASE_URL`,
      ),
    );
  });
});
