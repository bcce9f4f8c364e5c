// The AI SDK's UI message stream end to end: a real `toolgate serve` (a SQLite file, the
// power-exchange MCP server keeping its venue in a state file, the mock model), read with
// the AI SDK's own DefaultChatTransport and readUIMessageStream — the code path useChat runs.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  DefaultChatTransport,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type DynamicToolUIPart,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { RunEvent } from '../../src/core/index.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-ui-chat-key-0123456789';
const GLOBEX = 'globex-ui-chat-key-0123456789';
// A price no seeded order has: the venue's orders at it are the ones these tests placed.
const ORDER = '{"userId":"bob","side":"BUY","price":"80.25","qty":1,"symbol":"DE-BASE-D+1"}';
const SLOW = 'A slow and steady answer, streamed piece by piece, so that a client can reconnect in the middle of it.';
const ENVELOPE = '<tool_call>{"name": "getOrderBook", "arguments": {"depth": 2}}</tool_call>';

/** How often the model was asked about each question (a retried turn is asked again). */
const asked = new Map<string, number>();

function modelFor(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const question = messages.filter((m) => m.role === 'user')[0]?.content ?? '';
  const results = messages.filter((m) => m.role === 'tool');
  const count = (asked.get(question) ?? 0) + 1;
  asked.set(question, count);
  if (question.startsWith('order')) {
    if (results.length === 0)
      return { text: 'Placing the order.', toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] };
    return { text: /rejected/.test(results.at(-1)?.content ?? '') ? 'No order was placed.' : 'Your order is placed.' };
  }
  if (question.startsWith('bare')) return results.length === 0 ? { text: ENVELOPE } : { text: 'The book is deep.' };
  if (question.startsWith('prose')) {
    if (results.length > 0) return { text: 'The book is deep.' };
    // Prose and a call as text in native mode: not run, the model is asked to call it properly (a retried turn).
    if (count === 1) return { text: `Let me look at the book.\n${ENVELOPE}` };
    return { toolCalls: [{ id: 'b1', name: 'getOrderBook', arguments: '{"depth":2}' }] };
  }
  if (question.startsWith('slow')) return { text: SLOW, chunkDelayMs: 40 };
  if (question.startsWith('again')) return { text: `Answer ${count} to: again` };
  if (results.length === 0) {
    return { text: 'Checking the market.', toolCalls: [{ id: 'm1', name: 'getMarketMetrics', arguments: '{}' }] };
  }
  return { text: 'The market is calm.' };
}

let userIds = 0;
const user = (text: string): UIMessage => ({ id: `u${++userIds}`, role: 'user', parts: [{ type: 'text', text }] });

async function lastOf(messages: AsyncIterable<UIMessage>): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const message of messages) last = message;
  assert.ok(last !== undefined, 'the stream made a message');
  return last;
}

const textOf = (message: UIMessage): string =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(' ');

const toolPartsOf = (message: UIMessage): DynamicToolUIPart[] =>
  message.parts.filter((part): part is DynamicToolUIPart => part.type === 'dynamic-tool');

/** The message with its waiting approvals answered, as addToolApprovalResponse leaves it. */
function answer(message: UIMessage, approved: boolean): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      part.type === 'dynamic-tool' && part.state === 'approval-requested'
        ? { ...part, state: 'approval-responded', approval: { id: part.approval.id, approved } }
        : part,
    ),
  };
}

/** Raw SSE frames: `id` (when the frame has one) and the chunk (or "[DONE]"). */
function framesOf(text: string): { id: string | undefined; data: string }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => ({
      id: /^id: (.+)$/m.exec(frame)?.[1],
      data: /^data: (.+)$/m.exec(frame)?.[1] ?? '',
    }));
}

/** Chunks read from SSE text by the AI SDK's own parser (the one DefaultChatTransport uses). */
function chunksOf(text: string): ReadableStream<UIMessageChunk> {
  return parseJsonEventStream({
    stream: new Response(text).body ?? new ReadableStream(),
    schema: uiMessageChunkSchema,
  }).pipeThrough(
    new TransformStream({
      transform(parsed, controller) {
        if (!parsed.success) throw parsed.error;
        controller.enqueue(parsed.value);
      },
    }),
  );
}

describe('AI SDK UI message stream: POST /v1/ui/chat and GET /v1/ui/chat/{chatId}/stream', { timeout: 120_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  const venueFile = (): string => join(dir, 'venue.json');
  const transport = (key = KEY): DefaultChatTransport<UIMessage> =>
    new DefaultChatTransport({ api: `${server.url}/v1/ui/chat`, headers: { authorization: `Bearer ${key}` } });
  const post = (body: unknown, key = KEY): Promise<Response> =>
    fetch(`${server.url}/v1/ui/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const send = async (chatId: string, messages: UIMessage[], message?: UIMessage): Promise<UIMessage> => {
    const stream = await transport().sendMessages({
      chatId,
      messages,
      trigger: 'submit-message',
      messageId: message?.id,
      abortSignal: undefined,
    });
    return lastOf(
      readUIMessageStream({ stream, terminateOnError: true, ...(message === undefined ? {} : { message }) }),
    );
  };
  const runLog = async (runId: string): Promise<RunEvent[]> => {
    const response = await fetch(`${server.url}/v1/runs/${runId}/events?format=json`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    return ((await response.json()) as { events: RunEvent[] }).events;
  };
  /** Orders at the venue at the price these tests use (its state file is written after every write). */
  const ordersPlaced = (): number => {
    if (!existsSync(venueFile())) return 0;
    const state = JSON.parse(readFileSync(venueFile(), 'utf8')) as { exchange: { orders: { priceCents: number }[] } };
    return state.exchange.orders.filter((order) => order.priceCents === 8025).length;
  };

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-ai-sdk-ui-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:m
providers:
  openai: { baseUrl: "${mock.url}", apiKey: k, maxRetries: 0 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, "--state", ${JSON.stringify(venueFile())}]
tools:
  "power-exchange/placeOrder": { approval: required }
tenants:
  acme:
    apiKeys: ["${KEY}"]
  globex:
    apiKeys: ["${GLOBEX}"]
server: { store: "sqlite:./runs.db" }
`,
    );
    server = await startServe({ cwd: dir });
  });

  after(async () => {
    await server?.stop();
    await mock?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('SSE with the AI SDK headers, ids, [DONE]: text, a tool part: input, normalised input, output', async () => {
    const response = await post({ id: 'chat-read', messages: [user('how is the market?')], trigger: 'submit-message' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    const runId = response.headers.get('x-toolgate-run-id') ?? '';
    assert.match(runId, /^run_/);
    const text = await response.text();
    assert.ok(text.endsWith('data: [DONE]\n\n'), text.slice(-200));
    const frames = framesOf(text);
    assert.equal(frames[0]?.id, undefined, 'the start chunk belongs to no event');
    assert.ok(
      frames.slice(1, -1).every((f) => f.id !== undefined && /^\d+(:\d+)?$/.test(f.id)),
      'every chunk has an id',
    );
    const ids = frames.flatMap((f) => (f.id === undefined ? [] : [f.id]));
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');

    const message = await lastOf(readUIMessageStream({ stream: chunksOf(text), terminateOnError: true }));
    assert.equal(message.id, runId, "the assistant message's id is the run's id");
    assert.deepEqual(
      message.parts.map((p) => p.type),
      ['step-start', 'text', 'dynamic-tool', 'step-start', 'text'],
    );
    assert.match(textOf(message), /^Checking the market\. The market is calm\.$/);
    const [tool] = toolPartsOf(message);
    assert.equal(tool?.toolName, 'getMarketMetrics');
    assert.equal(tool?.state, 'output-available');
    assert.equal(tool?.providerExecuted, true);
    assert.deepEqual(tool?.input, {});
    assert.deepEqual(tool?.toolMetadata, { effect: 'read', decision: 'allowed', normalisedInput: {} });
    assert.equal((tool?.output as { symbol?: string } | undefined)?.symbol, 'DE-BASE-D+1');
    assert.equal(message.metadata, undefined);

    // The chat id is the run's thread, and the run is an ordinary run of the runs API.
    const log = await runLog(runId);
    assert.equal(log.find((e) => e.type === 'run_started')?.data.threadId, 'chat-read');

    // The next question carries the conversation: the model gets the earlier turn with its call and result.
    const first = user('how is the market?');
    const next = await send('chat-read', [first, message, user('and now?')]);
    assert.match(textOf(next), /The market is calm\.$/);
    const sent = mock.requests.at(-1)?.body.messages as { role: string; content: string; tool_calls?: unknown[] }[];
    assert.deepEqual(
      sent.filter((m) => m.role !== 'system').map((m) => `${m.role}${m.tool_calls === undefined ? '' : '+calls'}`),
      ['user', 'assistant+calls', 'tool', 'assistant', 'user'],
    );
    assert.match(sent.find((m) => m.role === 'tool')?.content ?? '', /DE-BASE-D\+1/);
  });

  it('holds a write for a person; the approval continues the same message; exactly one order', async () => {
    const question = user('order one MWh at 80.25 for bob');
    const held = await send('chat-order', [question]);
    const [waiting] = toolPartsOf(held);
    assert.equal(waiting?.state, 'approval-requested');
    assert.equal(waiting?.toolName, 'placeOrder');
    // The model's arguments, and what the gate made of them (the price typed by the tool's schema).
    assert.equal((waiting?.input as { price?: unknown } | undefined)?.price, '80.25');
    assert.equal((waiting?.toolMetadata?.['normalisedInput'] as { price?: unknown } | undefined)?.price, 80.25);
    assert.equal(waiting?.toolMetadata?.['decision'], 'approval_required');
    assert.equal(waiting?.toolMetadata?.['effect'], 'write');
    assert.equal(
      waiting?.state === 'approval-requested' ? waiting.approval.id : '',
      `${held.id}.${waiting?.toolCallId}`,
    );
    assert.equal(ordersPlaced(), 0, 'nothing was placed before the decision');
    // A page opened again while the run waits (useChat's resume) gets the same message, waiting for the decision.
    const replay = await transport().reconnectToStream({ chatId: 'chat-order' });
    assert.ok(replay !== null, 'a waiting run has a stream to resume');
    const replayed = await lastOf(readUIMessageStream({ stream: replay, terminateOnError: true }));
    assert.equal(replayed.id, held.id);
    assert.deepEqual(replayed.parts, held.parts);

    const approved = answer(held, true);
    const done = await send('chat-order', [question, approved], approved);
    assert.equal(done.id, held.id, 'the same assistant message goes on');
    const parts = toolPartsOf(done);
    assert.equal(parts.length, 1, 'the call is one part, not two');
    assert.equal(parts[0]?.state, 'output-available');
    assert.deepEqual(parts[0]?.toolMetadata?.['decision'], 'allowed');
    assert.match(textOf(done), /Placing the order\. Your order is placed\.$/);
    assert.equal(ordersPlaced(), 1);

    // The same decision again (a retry, a second tab): not an error, not a second order; the stream shows the outcome.
    // readUIMessageStream goes on with the message it is given in place: the decision is sent anew.
    const resent = answer(held, true);
    const again = await send('chat-order', [question, resent], resent);
    assert.equal(toolPartsOf(again)[0]?.state, 'output-available');
    assert.equal(ordersPlaced(), 1);
    const log = await runLog(held.id);
    assert.equal(log.filter((e) => e.type === 'tool_result' && e.data.name === 'placeOrder').length, 1);
    const decisions = log.flatMap((e) => (e.type === 'input_received' && e.data.input.type === 'approval' ? [e] : []));
    assert.deepEqual(
      decisions.map((e) => (e.data.input.type === 'approval' ? e.data.input.source : undefined)),
      [{ via: 'ui' }],
      'one decision, recorded as made in the chat UI',
    );
  });

  it('a rejection is a denied tool part; the model is told, and nothing reaches the venue', async () => {
    const question = user('order one MWh at 80.25 for bob, maybe');
    const held = await send('chat-reject', [question]);
    const rejected = answer(held, false);
    const done = await send('chat-reject', [question, rejected], rejected);
    assert.equal(toolPartsOf(done)[0]?.state, 'output-denied');
    assert.match(textOf(done), /No order was placed\.$/);
    assert.equal(ordersPlaced(), 1, 'still only the order of the approved run');
  });

  it('refuses approval ids that are forged, of another chat or of another tenant, with a JSON error', async () => {
    const question = user('order one MWh at 80.25 for bob, later');
    const held = await send('chat-guarded', [question]);
    const call = toolPartsOf(held)[0]?.toolCallId ?? '';
    const decide = (approvalId: string) => ({
      ...held,
      parts: [
        {
          type: 'dynamic-tool',
          toolName: 'placeOrder',
          toolCallId: call,
          state: 'approval-responded',
          input: {},
          approval: { id: approvalId, approved: true },
        },
      ],
    });
    const cases: { chat: string; id: string; key?: string; status: number; message: RegExp }[] = [
      { chat: 'chat-guarded', id: 'made-up', status: 404, message: /was not sent by toolgate/ },
      {
        chat: 'chat-guarded',
        id: `${held.id}.call_000000000000000000000000`,
        status: 404,
        message: /never asked a person/,
      },
      { chat: 'chat-other', id: `${held.id}.${call}`, status: 409, message: /belongs to another chat/ },
      { chat: 'chat-guarded', id: `${held.id}.${call}`, key: GLOBEX, status: 404, message: /not found/ },
    ];
    for (const c of cases) {
      const response = await post({ id: c.chat, messages: [question, decide(c.id)], trigger: 'submit-message' }, c.key);
      assert.equal(response.status, c.status, c.id);
      const body = (await response.json()) as { error: { code: string; message: string } };
      assert.match(body.error.message, c.message);
    }
    assert.equal(ordersPlaced(), 1, 'none of them placed an order');
    const model = await post({ id: 'chat-guarded', messages: [user('hi')], model: 'openai:not-listed' });
    assert.equal(model.status, 400);
    assert.equal(((await model.json()) as { error: { code: string } }).error.code, 'model_not_allowed');
    const bad = await post({ id: '', messages: [question] });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /^invalid request body: id: /);
  });

  it('a call written as text never reaches the stream; a retried turn shows only its last try', async () => {
    const bare = await post({ id: 'chat-bare', messages: [user('bare call please')] });
    const bareText = await bare.text();
    assert.doesNotMatch(bareText, /tool_call/, 'no envelope in any chunk');
    const bareMessage = await lastOf(readUIMessageStream({ stream: chunksOf(bareText), terminateOnError: true }));
    assert.equal(toolPartsOf(bareMessage)[0]?.toolName, 'getOrderBook');
    assert.deepEqual(toolPartsOf(bareMessage)[0]?.input, { depth: 2 });
    assert.equal(textOf(bareMessage), 'The book is deep.');

    const prose = await send('chat-prose', [user('prose and a call')]);
    assert.equal(textOf(prose), 'The book is deep.', 'the text of the turn that was asked again is gone');
    assert.deepEqual(
      prose.parts.map((p) => p.type),
      ['step-start', 'dynamic-tool', 'step-start', 'text'],
    );
  });

  it('regenerates: the answer being replaced is not history, and the conversation before it is', async () => {
    const first = user('again, please');
    const answered = await send('chat-again', [first]);
    assert.equal(textOf(answered), 'Answer 1 to: again');
    const stream = await transport().sendMessages({
      chatId: 'chat-again',
      messages: [first, answered],
      trigger: 'regenerate-message',
      messageId: answered.id,
      abortSignal: undefined,
    });
    const regenerated = await lastOf(readUIMessageStream({ stream, terminateOnError: true }));
    assert.notEqual(regenerated.id, answered.id);
    assert.equal(textOf(regenerated), 'Answer 2 to: again');
    const sent = mock.requests.at(-1)?.body.messages as { role: string }[];
    assert.deepEqual(
      sent.filter((m) => m.role !== 'system').map((m) => m.role),
      ['user'],
    );
  });

  it('resumes: a replay has every chunk once, Last-Event-ID goes on without a double, 204 without a run', async () => {
    assert.equal(
      (await fetch(`${server.url}/v1/ui/chat/nobody/stream`, { headers: { authorization: `Bearer ${KEY}` } })).status,
      204,
    );

    const response = await post({ id: 'chat-slow', messages: [user('slow answer please')] });
    const runId = response.headers.get('x-toolgate-run-id') ?? '';
    const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
    const decoder = new TextDecoder();
    let head = '';
    // Read until some text arrived, then drop the connection mid-answer.
    while (!/text-delta[\s\S]*text-delta[\s\S]*text-delta/.test(head)) {
      const { value, done } = await reader.read();
      if (done) break;
      head += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const complete = head.lastIndexOf('\n\n') + 2;
    head = head.slice(0, complete);
    const lastId =
      framesOf(head)
        .flatMap((f) => (f.id === undefined ? [] : [f.id]))
        .at(-1) ?? '';
    assert.match(lastId, /^\d+(:\d+)?$/);

    const auth = { authorization: `Bearer ${KEY}` };
    const [replay, rest] = await Promise.all([
      fetch(`${server.url}/v1/ui/chat/chat-slow/stream`, { headers: auth }).then((r) => r.text()),
      fetch(`${server.url}/v1/ui/chat/chat-slow/stream`, { headers: { ...auth, 'last-event-id': lastId } }).then((r) =>
        r.text(),
      ),
    ]);
    const replayed = framesOf(replay);
    assert.deepEqual(JSON.parse(replayed[0]?.data ?? '{}'), { type: 'start', messageId: runId });
    const replayIds = replayed.flatMap((f) => (f.id === undefined ? [] : [f.id]));
    assert.equal(new Set(replayIds).size, replayIds.length, 'every chunk once');
    const resumedIds = [...framesOf(head), ...framesOf(rest)].flatMap((f) => (f.id === undefined ? [] : [f.id]));
    assert.deepEqual(resumedIds, replayIds, 'the first stream and its continuation hold each chunk once, in order');
    assert.ok(!rest.includes('"type":"start"'), 'a continuation does not start the message again');

    const resumed = await lastOf(readUIMessageStream({ stream: chunksOf(head + rest), terminateOnError: true }));
    const replayedMessage = await lastOf(readUIMessageStream({ stream: chunksOf(replay), terminateOnError: true }));
    assert.equal(textOf(resumed), SLOW);
    assert.equal(textOf(replayedMessage), SLOW);

    // The run is over: nothing to resume, as the transport expects; a client cut off inside it still gets the rest.
    assert.equal(await transport().reconnectToStream({ chatId: 'chat-slow' }), null);
    const late = await fetch(`${server.url}/v1/ui/chat/chat-slow/stream`, {
      headers: { ...auth, 'last-event-id': lastId },
    }).then((r) => r.text());
    assert.deepEqual(framesOf(late), framesOf(rest));
    const other = await fetch(`${server.url}/v1/ui/chat/chat-slow/stream`, {
      headers: { authorization: `Bearer ${GLOBEX}` },
    });
    assert.equal(other.status, 204, 'another tenant sees no run of this chat');
  });
});
