// POST /v1/chat/completions and GET /v1/models against a real `toolgate serve` (SQLite on disk, the power-exchange
// MCP server, the mock model), called by the real clients, unmodified: the official `openai` SDK and the AI SDK's
// `@ai-sdk/openai-compatible` provider.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, startServe, type StartedProcess } from '../support/processes.ts';

const ACME = 'acme-chat-key-0123456789';
const GLOBEX = 'globex-chat-key-0123456789';
const STREAMED = 'Base load trades near 92 EUR/MWh today; the book is deep on both sides.';
// Below alice's resting sell order (86.5): the venue takes it without crossing her own book.
const ORDER = '{"side":"BUY","price":80,"qty":1,"symbol":"DE-BASE-D+1"}';
// Messy on purpose: written as text, a trailing comma, a number with a thousands separator, an enum in the wrong case.
const MESSY_CALL =
  '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "7,000", "unit": "Celsius",}}</tool_call>';
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather of a city for the next days',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city', 'days'],
    },
  },
};

type WireMessage = { role: string; content: string | null };

/** The mock model: the conversation's first user message picks the scenario; a tool result gets its answer. */
function modelFor(request: RecordedRequest): MockResponse {
  const messages: WireMessage[] = request.body.messages;
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const last = messages.at(-1);
  const afterTool = last?.role === 'tool';
  const toolText = afterTool ? (last?.content ?? '') : '';
  if (prompt.startsWith('spread')) {
    if (afterTool) return { text: `The market is read: ${toolText.includes('DE-BASE-D+1') ? 'DE-BASE-D+1' : '?'}.` };
    return {
      text: 'Let me look.',
      toolCalls: [{ id: 'm1', name: 'getMarketMetrics', arguments: '{"symbol":"DE-BASE-D+1"}' }],
    };
  }
  if (prompt.startsWith('stream')) return { text: STREAMED, chunkDelayMs: 5 };
  if (prompt.startsWith('weather')) return afterTool ? { text: `In Paris: ${toolText}.` } : { text: MESSY_CALL };
  if (prompt.startsWith('buy')) {
    if (!afterTool)
      return { text: 'Placing the order.', toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] };
    return { text: /reject|denied|not approved/i.test(toolText) ? 'No order was placed.' : 'Your order is placed.' };
  }
  if (prompt.startsWith('fail')) return { status: 500 };
  return { text: `Answer to: ${prompt}` };
}

describe('OpenAI-compatible chat completions on toolgate serve', { timeout: 120_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  let client: OpenAI;

  const api = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${server.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${ACME}`, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
    return (await response.json()) as T;
  };
  const eventsOf = async (runId: string): Promise<RunEvent[]> =>
    (await api<{ events: RunEvent[] }>(`/v1/runs/${runId}/events?format=json`)).events;
  const approve = async (runId: string): Promise<void> => {
    const run = await api<Run>(`/v1/runs/${runId}`);
    const toolCallId = run.pendingApproval?.toolCallId ?? assert.fail(`run ${runId} waits for nothing`);
    await api(`/v1/runs/${runId}/input`, {
      method: 'POST',
      body: { type: 'approval', toolCallId, decision: 'approve' },
    });
  };
  const statusOf = async (runId: string): Promise<string> => (await api<Run>(`/v1/runs/${runId}`)).status;
  const waitForStatus = async (runId: string, status: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while ((await statusOf(runId)) !== status) {
      if (Date.now() > deadline) assert.fail(`run ${runId} never reached ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const runCount = async (): Promise<number> => (await api<{ runs: unknown[] }>('/v1/runs?limit=200')).runs.length;

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-openai-compat-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:m
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
tools:
  "power-exchange/placeOrder": { approval: required, inject: { userId: "{{user.id}}" } }
tenants:
  acme:
    apiKeys: [{ key: "${ACME}", userId: alice }]
  globex:
    apiKeys: ["${GLOBEX}"]
server:
  store: sqlite:./data/runs.db
  heartbeatMs: 200
chat:
  approvalTimeoutMs: 2000
`,
    );
    server = await startServe({ cwd: dir });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: ACME, maxRetries: 0 });
  });

  after(async () => {
    await server?.stop();
    await mock?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('answers with a server-side read run through the gate, as a run in the store (not streamed)', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'openai:m', messages: [{ role: 'user', content: 'spread of base load?' }] })
      .withResponse();
    const runId = response.headers.get('x-toolgate-run-id') ?? assert.fail('no X-Toolgate-Run-Id');
    assert.equal(data.id, `chatcmpl-${runId}`);
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.model, 'openai:m');
    assert.equal(data.choices[0]?.message.content, 'The market is read: DE-BASE-D+1.');
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.ok((data.usage?.prompt_tokens ?? 0) > 0 && (data.usage?.completion_tokens ?? 0) > 0, 'usage is reported');
    const events = await eventsOf(runId);
    const results = ofType(events, 'tool_result');
    assert.deepEqual(
      results.map((e) => [e.data.name, e.data.ok]),
      [['getMarketMetrics', true]],
      'the read ran inside toolgate',
    );
    assert.equal(ofType(events, 'gate_decision')[0]?.data.decision, 'allowed');
    const run = await api<Run>(`/v1/runs/${runId}`);
    assert.equal(run.status, 'completed');
    assert.deepEqual(run.metadata, { protocol: 'chat.completions' });
    const listed = await api<{ runs: { id: string }[] }>('/v1/runs?limit=5');
    assert.ok(
      listed.runs.some((r) => r.id === runId),
      'GET /v1/runs lists it',
    );
  });

  it('streams chat.completion.chunk events: the text assembled, the run named in the header, usage last', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'openai:m',
        messages: [{ role: 'user', content: 'stream the market' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const runId = response.headers.get('x-toolgate-run-id') ?? assert.fail('no X-Toolgate-Run-Id');
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.equal(text, STREAMED);
    assert.ok(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length > 3, 'text came in pieces');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason !== null && c.choices.length > 0);
    assert.deepEqual(
      finish.map((c) => c.choices[0]?.finish_reason),
      ['stop'],
    );
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    assert.ok((last?.usage?.total_tokens ?? 0) > 0, 'the usage chunk');
    assert.ok(chunks.every((c) => c.id === `chatcmpl-${runId}`));
  });

  it('hands a messy client tool call back clean (finish_reason tool_calls), then answers from its result', async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'weather in Paris?' },
    ];
    const first = await client.chat.completions.create({ model: 'openai:m', messages, tools: [WEATHER_TOOL] });
    const choice = first.choices[0] ?? assert.fail('no choice');
    assert.equal(choice.finish_reason, 'tool_calls');
    const calls = choice.message.tool_calls ?? [];
    assert.equal(calls.length, 1);
    const call = calls[0];
    assert.ok(call !== undefined && call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris', days: 7000, unit: 'celsius' });
    assert.equal(choice.message.content, null, 'the call envelope is not shown as text');
    const firstRun = first.id.replace(/^chatcmpl-/, '');
    assert.deepEqual(ofType(await eventsOf(firstRun), 'tool_result'), [], 'a client tool is not executed by toolgate');
    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '18 C and sunny' });
    const second = await client.chat.completions.create({ model: 'openai:m', messages, tools: [WEATHER_TOOL] });
    assert.equal(second.choices[0]?.message.content, 'In Paris: 18 C and sunny.');
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    assert.notEqual(second.id, first.id, 'the tool result starts a run of its own');
    // The model saw the whole conversation: the call it made and the client's result.
    const seen: { role: string; tool_call_id?: string }[] = mock.requests.at(-1)?.body.messages ?? [];
    assert.deepEqual(
      seen.filter((m) => m.role !== 'system').map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
  });

  it('holds a write for a person, repeats the hold while it waits, continues once approved: one order', async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'buy 1 MWh of base load at 80' },
    ];
    const { data: held, response } = await client.chat.completions
      .create({ model: 'openai:m', messages })
      .withResponse();
    const runId = response.headers.get('x-toolgate-run-id') ?? assert.fail('no X-Toolgate-Run-Id');
    const message = held.choices[0]?.message ?? assert.fail('no message');
    assert.equal(held.choices[0]?.finish_reason, 'stop');
    assert.match(message.content ?? '', new RegExp(`The call to placeOrder needs a person's approval.*${runId}`));
    const extension = Reflect.get(held, 'toolgate');
    assert.partialDeepStrictEqual(extension, {
      runId,
      status: 'waiting_approval',
      pendingApproval: { name: 'placeOrder', effect: 'write', reason: 'policy', arguments: { side: 'BUY' } },
    });
    assert.deepEqual(Reflect.get(message, 'toolgate'), extension, 'on the message too');

    // Asked again before anyone decided: the same hold, the same run.
    messages.push(message, { role: 'user', content: 'is it done?' });
    const again = await client.chat.completions.create({ model: 'openai:m', messages }).withResponse();
    assert.equal(again.response.headers.get('x-toolgate-run-id'), runId);
    assert.equal(again.data.choices[0]?.message.content, message.content);
    // Streamed, the same hold: the message as content, finish_reason stop, the toolgate field on the last chunk.
    const streamed = await client.chat.completions.create({ model: 'openai:m', messages, stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of streamed) chunks.push(chunk);
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), message.content);
    assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
    assert.partialDeepStrictEqual(Reflect.get(chunks.at(-1) ?? {}, 'toolgate'), {
      runId,
      status: 'waiting_approval',
      pendingApproval: { name: 'placeOrder' },
    });

    await approve(runId);
    const runsBefore = await runCount();
    const continued = await client.chat.completions.create({ model: 'openai:m', messages }).withResponse();
    assert.equal(continued.response.headers.get('x-toolgate-run-id'), runId, 'the held run continues');
    assert.equal(continued.data.choices[0]?.message.content, 'Your order is placed.');
    // A retry of the same request answers the same, and places nothing more.
    const retried = await client.chat.completions.create({ model: 'openai:m', messages });
    assert.equal(retried.choices[0]?.message.content, 'Your order is placed.');
    assert.equal(await runCount(), runsBefore, 'no new run');
    const orders = ofType(await eventsOf(runId), 'tool_result').filter((e) => e.data.name === 'placeOrder');
    assert.deepEqual(
      orders.map((e) => e.data.ok),
      [true],
      'exactly one order at the venue',
    );
  });

  it('starts a new run for a new conversation, and for one that only quotes a held run’s id', async () => {
    const held = await client.chat.completions.create({
      model: 'openai:m',
      messages: [{ role: 'user', content: 'buy for the quote test' }],
    });
    const heldRun = held.id.replace(/^chatcmpl-/, '');
    const quoted = await client.chat.completions.create({
      model: 'openai:m',
      messages: [
        { role: 'user', content: 'which run was it?' },
        { role: 'assistant', content: `It was run ${heldRun}.` },
        { role: 'user', content: 'thanks' },
      ],
    });
    assert.notEqual(quoted.id, held.id);
    assert.equal(quoted.choices[0]?.message.content, 'Answer to: which run was it?');
    const fresh = await client.chat.completions.create({
      model: 'openai:m',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.notEqual(fresh.id, held.id);
    // Another tenant sending the hold message back does not reach the run.
    const globex = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: GLOBEX, maxRetries: 0 });
    const foreign = await globex.chat.completions.create({
      model: 'openai:m',
      messages: [
        { role: 'user', content: 'hello from globex' },
        held.choices[0]?.message ?? assert.fail('no message'),
        { role: 'user', content: 'go on' },
      ],
    });
    assert.notEqual(foreign.id, held.id);
    assert.equal(foreign.choices[0]?.message.content, 'Answer to: hello from globex');
    await api(`/v1/runs/${heldRun}/cancel`, { method: 'POST', body: {} });
  });

  it('with toolgate.wait, a stream stays open through the approval; an undecided wait ends with the hold', async () => {
    const body = {
      model: 'openai:m',
      messages: [{ role: 'user' as const, content: 'buy and wait' }],
      stream: true as const,
      toolgate: { wait: true },
    };
    const { data: stream, response } = await client.chat.completions.create(body).withResponse();
    const runId = response.headers.get('x-toolgate-run-id') ?? assert.fail('no X-Toolgate-Run-Id');
    await waitForStatus(runId, 'waiting_approval');
    await approve(runId);
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(text, 'Placing the order.\n\nYour order is placed.');
    assert.equal(finish, 'stop');

    // Nobody decides: after chat.approvalTimeoutMs (2 s here) the answer is the hold message.
    const started = Date.now();
    const waiting = {
      model: 'openai:m',
      messages: [{ role: 'user' as const, content: 'buy and nobody answers' }],
      toolgate: { wait: true },
    };
    const undecided = await client.chat.completions.create(waiting);
    assert.ok(Date.now() - started >= 1900, 'it waited');
    assert.match(undecided.choices[0]?.message.content ?? '', /needs a person's approval/);
    await api(`/v1/runs/${undecided.id.replace(/^chatcmpl-/, '')}/cancel`, { method: 'POST', body: {} });
  });

  it('speaks the wire format: data events, keep-alives while a call is held, [DONE] last', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'openai:m',
        stream: true,
        toolgate: { wait: true },
        messages: [{ role: 'user', content: 'buy on the raw wire' }],
      }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const runId = response.headers.get('x-toolgate-run-id') ?? assert.fail('no X-Toolgate-Run-Id');
    const reader = (response.body ?? assert.fail('no body')).pipeThrough(new TextDecoderStream()).getReader();
    let raw = '';
    // server.heartbeatMs is 200 here: a keep-alive comes while the order waits.
    while (!raw.includes(': keep-alive\n\n')) {
      const { value, done } = await reader.read();
      if (done) assert.fail(`the stream ended while the call was held:\n${raw}`);
      raw += value;
    }
    await approve(runId);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += value;
    }
    const frames = raw.split('\n\n').filter((frame) => frame !== '');
    assert.ok(
      frames.every((frame) => frame.startsWith('data: ') || frame === ': keep-alive'),
      raw,
    );
    assert.equal(frames.at(-1), 'data: [DONE]');
    const chunks = frames
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice('data: '.length)));
    assert.equal(
      chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''),
      'Placing the order.\n\nYour order is placed.',
    );
    assert.deepEqual(chunks.at(-1).toolgate, { runId, status: 'completed' });
  });

  it('answers errors in OpenAI’s shape, so the SDK raises its own error types with the status', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'openai:nope', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError &&
        error.status === 400 &&
        error.code === 'model_not_allowed' &&
        error.type === 'invalid_request_error' &&
        /openai:nope/.test(error.message),
    );
    await assert.rejects(
      client.chat.completions.create({ model: 'openai:m', messages: [{ role: 'user', content: 'hi' }], n: 3 }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && /n must be 1/.test(error.message),
    );
    const stranger = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'not-a-key-0123456789', maxRetries: 0 });
    await assert.rejects(
      stranger.chat.completions.create({ model: 'openai:m', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) =>
        error instanceof OpenAI.AuthenticationError && error.status === 401 && error.code === 'unauthorized',
    );
    await assert.rejects(
      client.chat.completions.create({
        model: 'openai:m',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'placeOrder' } }],
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError &&
        /placeOrder has the name of a tool toolgate runs/.test(error.message),
    );
    // A run that fails (the model endpoint answers 500): the run's error code with its status, the run named, and
    // no retry by the SDK (retrying would start the run again), even with its default retries.
    const retrying = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: ACME });
    await assert.rejects(
      retrying.chat.completions.create({ model: 'openai:m', messages: [{ role: 'user', content: 'fail please' }] }),
      (error: unknown) =>
        error instanceof OpenAI.APIError &&
        error.status === 502 &&
        typeof error.code === 'string' &&
        error.code.startsWith('model_') &&
        /^run_/.test(error.headers?.get('x-toolgate-run-id') ?? ''),
    );
    assert.equal(mock.requests.filter((r) => JSON.stringify(r.body).includes('fail please')).length, 1, 'one run');
    // The same failure once a stream has begun: an error event, raised by the SDK's stream.
    const stream = await client.chat.completions.create({
      model: 'openai:m',
      messages: [{ role: 'user', content: 'fail while streaming' }],
      stream: true,
    });
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) assert.ok(chunk.object === 'chat.completion.chunk');
      })(),
      (error: unknown) => error instanceof OpenAI.APIError && /failed/.test(error.message),
    );
  });

  it('lists the models in OpenAI’s shape', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['openai:m']);
  });

  it('answers the AI SDK’s openai-compatible provider: generateText and streamText', async () => {
    const toolgate = createOpenAICompatible({ name: 'toolgate', baseURL: `${server.url}/v1`, apiKey: ACME });
    const generated = await generateText({ model: toolgate('openai:m'), prompt: 'hello from the AI SDK' });
    assert.equal(generated.text, 'Answer to: hello from the AI SDK');
    assert.equal(generated.finishReason, 'stop');
    const read = await generateText({ model: toolgate.chatModel('openai:m'), prompt: 'spread, please' });
    assert.equal(read.text, 'The market is read: DE-BASE-D+1.');
    const streamed = streamText({ model: toolgate('openai:m'), prompt: 'stream it to the AI SDK' });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    assert.equal(text, STREAMED);
    assert.equal(await streamed.finishReason, 'stop');
  });
});
