import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent, RunEventDataMap } from '../../core/events.ts';
import type { PendingApproval } from '../../core/runs.ts';
import { ChatAnswer, type AnswerDelta, type ChatToolCall } from './chat-answer.ts';
import { chunkObject, completionObject, deltaObject, finalChunk, usageChunk } from './openai-answer.ts';

/** An event as a test writes it: type and data; the id and the rest are filled in. */
type Bare = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'id' | 'runId' | 'time'> : never) : never;

let nextId = 1;
function ev(event: Bare): RunEvent {
  return { ...event, id: nextId++, runId: 'run_1', time: '2026-01-01T00:00:00.000Z' };
}

const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

function turn(step: number, text: string, extra: Partial<RunEventDataMap['assistant_message']> = {}): RunEvent {
  return ev({
    type: 'assistant_message',
    data: { step, text, toolCalls: [], finishReason: 'stop', latencyMs: 1, ...extra },
  });
}

function feed(answer: ChatAnswer, events: RunEvent[]): AnswerDelta[] {
  return events.flatMap((event) => answer.push(event));
}

const who = { runId: 'run_1', model: 'openai:m', created: 1700000000 };

describe('ChatAnswer: run events as a chat answer', () => {
  it('streams each turn’s text apart by a blank line, shows what the deltas held back, skips side calls', () => {
    const answer = new ChatAnswer();
    const deltas = feed(answer, [
      ev({ type: 'run_started', data: { input: 'q', model: 'openai:m', tools: [], maxSteps: 5 } }),
      turn(1, '{"steps": []}', { purpose: 'plan', usage: usage(5, 1) }),
      ev({ type: 'assistant_delta', data: { step: 2, text: 'Let me ' } }),
      ev({ type: 'assistant_delta', data: { step: 2, text: 'look.' } }),
      turn(2, 'Let me look.<tool_call>{"name":"getOrderBook"}</tool_call>', {
        content: 'Let me look. Reading',
        finishReason: 'tool_calls',
        usage: usage(10, 4),
      }),
      ev({
        type: 'tool_result',
        data: { step: 2, toolCallId: 'c1', name: 'getOrderBook', ok: true, content: [], latencyMs: 1 },
      }),
      // A turn that did not stream: its whole text at its end, with its reasoning first.
      turn(3, 'The spread is 2 EUR.', { reasoning: 'bid 90, ask 92', usage: usage(20, 6) }),
      ev({ type: 'run_completed', data: { output: 'The spread is 2 EUR.', usage: usage(35, 11), steps: 3 } }),
    ]);
    assert.deepEqual(deltas, [
      { content: 'Let me ' },
      { content: 'look.' },
      { content: ' Reading' },
      { reasoning: 'bid 90, ask 92' },
      { content: '\n\nThe spread is 2 EUR.' },
    ]);
    assert.deepEqual(answer.end, { kind: 'completed', output: 'The spread is 2 EUR.', finishReason: 'stop' });
    assert.deepEqual(answer.usage, usage(35, 11), 'every model call counts, side calls included');
    const completion = completionObject(who, answer);
    assert.deepEqual(completion, {
      id: 'chatcmpl-run_1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'openai:m',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'The spread is 2 EUR.',
            refusal: null,
            reasoning_content: 'bid 90, ask 92',
          },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 35, completion_tokens: 11, total_tokens: 46 },
      toolgate: { runId: 'run_1', status: 'completed' },
    });
  });

  it('ends with finish_reason length when the last turn was cut off', () => {
    const answer = new ChatAnswer();
    feed(answer, [
      turn(1, 'A long', { finishReason: 'length' }),
      ev({ type: 'run_completed', data: { output: 'A long', usage: usage(1, 1), steps: 1 } }),
    ]);
    assert.equal(completionObject(who, answer).choices[0].finish_reason, 'length');
  });

  it('hands client tool calls back as tool_calls with their normalised arguments', () => {
    const answer = new ChatAnswer();
    const deltas = feed(answer, [
      turn(1, 'Checking.', { finishReason: 'tool_calls' }),
      ev({
        type: 'client_tool_calls',
        data: {
          step: 1,
          calls: [
            { toolCallId: 'call_a', name: 'get_weather', arguments: { city: 'Paris', days: 7000 } },
            { toolCallId: 'call_b', name: 'get_time', arguments: {} },
          ],
        },
      }),
      ev({ type: 'run_completed', data: { output: 'Checking.', usage: usage(3, 2), steps: 1 } }),
    ]);
    const calls: ChatToolCall[] = [
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":7000}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ];
    assert.deepEqual(deltas, [{ content: 'Checking.' }, { toolCalls: calls }]);
    const message = completionObject(who, answer).choices[0];
    assert.equal(message.finish_reason, 'tool_calls');
    assert.deepEqual(message.message.tool_calls, calls);
    assert.equal(message.message.content, 'Checking.');
    assert.deepEqual(deltaObject({ toolCalls: calls.slice(1) }, 1).tool_calls, [{ index: 1, ...calls[1] }]);
    const empty = new ChatAnswer();
    feed(empty, [
      ev({ type: 'client_tool_calls', data: { step: 1, calls: [{ toolCallId: 'c', name: 'f', arguments: {} }] } }),
      ev({ type: 'run_completed', data: { output: '', usage: usage(1, 1), steps: 1 } }),
    ]);
    assert.equal(completionObject(who, empty).choices[0].message.content, null, 'no text: content null');
  });

  it('ends with the hold message and the pending approval, on the completion and on its message', () => {
    const answer = new ChatAnswer();
    const pending: PendingApproval = {
      toolCallId: 'call_1',
      name: 'placeOrder',
      arguments: { side: 'BUY' },
      effect: 'write',
      reason: 'policy',
      eventId: 7,
    };
    const deltas = [...feed(answer, [turn(1, 'Placing it.')]), ...answer.hold('placeOrder waits in run_1.', pending)];
    assert.deepEqual(deltas, [{ content: 'Placing it.' }, { content: '\n\nplaceOrder waits in run_1.' }]);
    const completion = completionObject(who, answer);
    const toolgate = { runId: 'run_1', status: 'waiting_approval', pendingApproval: pending };
    assert.deepEqual(completion.toolgate, toolgate);
    assert.deepEqual(completion.choices[0].message, {
      role: 'assistant',
      content: 'placeOrder waits in run_1.',
      refusal: null,
      toolgate,
    });
    assert.equal(completion.choices[0].finish_reason, 'stop');
    assert.deepEqual(finalChunk(who, answer.end ?? assert.fail('no end')), {
      id: 'chatcmpl-run_1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'openai:m',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }],
      toolgate,
    });
  });

  it('ends failed or cancelled with the error, and builds no completion for them', () => {
    const failed = new ChatAnswer();
    feed(failed, [ev({ type: 'run_failed', data: { error: { code: 'max_steps', message: 'too many steps' } } })]);
    assert.deepEqual(failed.end, { kind: 'failed', error: { code: 'max_steps', message: 'too many steps' } });
    assert.throws(() => completionObject(who, failed));
    const cancelled = new ChatAnswer();
    feed(cancelled, [ev({ type: 'run_cancelled', data: { reason: 'stop it' } })]);
    assert.deepEqual(cancelled.end, { kind: 'cancelled', reason: 'stop it' });
  });

  it('builds chunks and the usage chunk in OpenAI’s shape', () => {
    assert.deepEqual(chunkObject(who, { delta: { role: 'assistant', content: '' } }), {
      id: 'chatcmpl-run_1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'openai:m',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }],
    });
    assert.deepEqual(usageChunk(who, { ...usage(4, 2), cacheReadTokens: 3 }), {
      id: 'chatcmpl-run_1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'openai:m',
      choices: [],
      usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, prompt_tokens_details: { cached_tokens: 3 } },
    });
    assert.deepEqual(deltaObject({ content: 'a', reasoning: 'b' }, 0), { content: 'a', reasoning_content: 'b' });
  });
});
