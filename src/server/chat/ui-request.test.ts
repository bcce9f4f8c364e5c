import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { parseUiChatBody } from './ui-request.ts';

const user = (text: string, id = 'u1') => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** An assistant message as the AI SDK keeps one: two turns, a read with its output, a call still waiting. */
const answered = {
  id: 'run_a',
  role: 'assistant',
  metadata: { mine: true },
  parts: [
    { type: 'step-start' },
    { type: 'reasoning', text: 'hmm', state: 'done' },
    { type: 'text', text: 'Checking.', state: 'done' },
    {
      type: 'dynamic-tool',
      toolName: 'getMarketMetrics',
      toolCallId: 'call_1',
      state: 'output-available',
      input: { symbol: 'DE' },
      output: { lastPrice: 86.5 },
    },
    { type: 'tool-lookup', toolCallId: 'call_2', state: 'output-error', input: {}, errorText: 'no such thing' },
    { type: 'dynamic-tool', toolName: 'placeOrder', toolCallId: 'call_3', state: 'input-available', input: {} },
    { type: 'step-start' },
    { type: 'text', text: 'Calm.', state: 'done' },
  ],
};

function refusal(body: unknown): string {
  try {
    parseUiChatBody(body);
  } catch (error) {
    assert.ok(error instanceof ToolgateError);
    assert.equal(error.code, 'usage');
    return error.message;
  }
  return assert.fail('the body was accepted');
}

describe('parseUiChatBody', () => {
  it('a question: its text is the input, the messages before it the history, with calls and their results', () => {
    const request = parseUiChatBody({
      id: 'chat-1',
      trigger: 'submit-message',
      messages: [
        { id: 's', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
        user('how?'),
        answered,
        user('and now?', 'u2'),
      ],
      model: 'openai:m',
      metadata: { page: 'home' },
    });
    assert.equal(request.kind, 'ask');
    if (request.kind !== 'ask') return;
    assert.equal(request.chatId, 'chat-1');
    assert.equal(request.input, 'and now?');
    assert.equal(request.model, 'openai:m');
    assert.deepEqual(request.metadata, { page: 'home' });
    assert.deepEqual(request.history, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'how?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          { id: 'call_1', name: 'getMarketMetrics', arguments: '{"symbol":"DE"}' },
          { id: 'call_2', name: 'lookup', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'getMarketMetrics', content: '{"lastPrice":86.5}' },
      { role: 'tool', toolCallId: 'call_2', name: 'lookup', content: 'Error (tool_error): no such thing' },
      { role: 'assistant', content: 'Calm.' },
    ]);
  });

  it('a regeneration answers the last question again, without the answer it replaces', () => {
    const request = parseUiChatBody({
      id: 'c',
      trigger: 'regenerate-message',
      messageId: 'run_a',
      messages: [user('how?'), answered],
    });
    assert.deepEqual(request, { kind: 'ask', chatId: 'c', input: 'how?', history: [] });
  });

  it('an assistant message answering approvals is a decision, with each approval of the message', () => {
    const request = parseUiChatBody({
      id: 'c',
      trigger: 'submit-message',
      messageId: 'run_a',
      messages: [
        user('buy'),
        {
          id: 'run_a',
          role: 'assistant',
          parts: [
            { type: 'step-start' },
            {
              type: 'dynamic-tool',
              toolName: 'placeOrder',
              toolCallId: 'call_3',
              state: 'approval-responded',
              input: {},
              approval: { id: 'run_a.call_3', approved: false, reason: 'too dear' },
            },
            {
              type: 'dynamic-tool',
              toolName: 'x',
              toolCallId: 'call_4',
              state: 'output-available',
              input: {},
              output: 1,
            },
          ],
        },
      ],
    });
    assert.deepEqual(request, {
      kind: 'decide',
      chatId: 'c',
      messageId: 'run_a',
      approvals: [{ approvalId: 'run_a.call_3', approved: false, reason: 'too dear' }],
    });
  });

  it('refuses bodies the AI SDK would not send, saying what is wrong', () => {
    assert.match(refusal(undefined), /request body is required/);
    assert.match(refusal({ id: '', messages: [user('x')] }), /^invalid request body: id: must be the chat's id/);
    assert.match(refusal({ id: 'x'.repeat(256), messages: [user('x')] }), /id: must be the chat's id, 1 to 255/);
    assert.match(refusal({ id: 'c', messages: [] }), /messages: must hold at least the question/);
    assert.match(refusal({ id: 'c', messages: [user('x')], temperature: 1 }), /unknown field "temperature"/);
    assert.match(refusal({ id: 'c', messages: [user('x')], trigger: 'resume' }), /trigger: must be "submit-message"/);
    assert.match(
      refusal({ id: 'c', messages: [{ id: 'm', role: 'tool', parts: [] }] }),
      /messages\.0\.role: must be "system", "user" or "assistant"/,
    );
    assert.match(refusal({ id: 'c', messages: [user('')] }), /messages\[0\] has no text/);
    assert.match(refusal({ id: 'c', messages: [answered] }), /messages\[0\] is an assistant message without approval/);
    assert.match(
      refusal({ id: 'c', trigger: 'regenerate-message', messages: [answered] }),
      /must end with the user's question; there is no message before the answer to regenerate/,
    );
    assert.match(
      refusal({
        id: 'c',
        messages: [
          { id: 'a', role: 'assistant', parts: [{ type: 'dynamic-tool', toolName: 'x', state: 'approval-responded' }] },
        ],
      }),
      /messages\[0\]\.parts\[0\]\.toolCallId: /,
    );
    assert.match(
      refusal({
        id: 'c',
        messages: [
          { id: 'a', role: 'assistant', parts: [{ type: 'tool-x', toolCallId: 'k', state: 'approval-responded' }] },
        ],
      }),
      /"approval-responded" without approval\.id and approval\.approved/,
    );
  });
});
