import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { parseChatRequest } from './openai-request.ts';

const user = (content: unknown) => ({ role: 'user', content });

function refused(body: unknown, pattern: RegExp): void {
  assert.throws(
    () => parseChatRequest(body),
    (error: unknown) => error instanceof ToolgateError && error.code === 'usage' && pattern.test(error.message),
  );
}

describe('parseChatRequest', () => {
  it('takes the last user message as input and the messages before it as history', () => {
    const request = parseChatRequest({
      model: 'openai:m',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'system', content: [{ type: 'text', text: 'Trade carefully.' }] },
        user('What is the spread?'),
        { role: 'assistant', content: 'About 2 EUR.' },
        user([
          { type: 'text', text: 'And the' },
          { type: 'text', text: 'volume?' },
        ]),
      ],
      temperature: 0.2,
      top_p: 1,
      n: 1,
      seed: 7,
      parallel_tool_calls: true,
      stream_options: { include_usage: true },
      response_format: { type: 'text' },
      some_future_field: { x: 1 },
    });
    assert.equal(request.input, 'And the\nvolume?');
    assert.deepEqual(request.history, [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Trade carefully.' },
      { role: 'user', content: 'What is the spread?' },
      { role: 'assistant', content: 'About 2 EUR.' },
    ]);
    assert.equal(request.model, 'openai:m');
    assert.equal(request.stream, false);
    assert.equal(request.includeUsage, true);
    assert.equal(request.wait, false);
    assert.deepEqual(request.clientTools, []);
    assert.deepEqual(request.metadata, { protocol: 'chat.completions' });
    assert.deepEqual(request.lastAssistant, { text: 'About 2 EUR.' });
  });

  it('ends with tool results: empty input, every message in history, tool names from the calls they answer', () => {
    const request = parseChatRequest({
      model: 'openai:m',
      stream: true,
      messages: [
        user('Weather in Paris?'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18 C, sunny' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: {} } },
        },
        { type: 'function', function: { name: 'no_params' } },
      ],
    });
    assert.equal(request.input, '');
    assert.equal(request.stream, true);
    assert.deepEqual(request.history, [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'get_weather', content: '18 C, sunny' },
    ]);
    assert.deepEqual(request.clientTools, [
      { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: {} } },
      { name: 'no_params', description: '', parameters: { type: 'object' } },
    ]);
  });

  it('offers no client tools with tool_choice "none"', () => {
    const request = parseChatRequest({
      model: 'openai:m',
      messages: [user('hi')],
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: 'none',
    });
    assert.deepEqual(request.clientTools, []);
  });

  it('names the thread by header, else metadata.thread, else user; keeps metadata with the protocol', () => {
    const body = { model: 'openai:m', messages: [user('hi')], user: 'u-1', metadata: { thread: 't-9', app: 'x' } };
    assert.equal(parseChatRequest(body, { threadHeader: 'h-3' }).threadId, 'h-3');
    const fromMetadata = parseChatRequest(body);
    assert.equal(fromMetadata.threadId, 't-9');
    assert.deepEqual(fromMetadata.metadata, { thread: 't-9', app: 'x', protocol: 'chat.completions' });
    assert.equal(parseChatRequest({ model: 'openai:m', messages: [user('hi')], user: 'u-1' }).threadId, 'u-1');
    assert.equal(parseChatRequest({ model: 'openai:m', messages: [user('hi')] }).threadId, undefined);
    refused({ model: 'openai:m', messages: [user('hi')], user: 'x'.repeat(256) }, /user must be at most 255/);
    refused({ model: 'openai:m', messages: [user('hi')], metadata: { thread: '' } }, /metadata\.thread must be/);
  });

  it('reads toolgate.wait and the toolgate field of the last assistant message', () => {
    const request = parseChatRequest({
      model: 'openai:m',
      toolgate: { wait: true },
      messages: [
        user('buy'),
        {
          role: 'assistant',
          content: 'held in run_0123456789abcdef01234567',
          toolgate: {
            runId: 'run_0123456789abcdef01234567',
            status: 'waiting_approval',
            pendingApproval: { eventId: 9 },
          },
        },
        user('go on'),
      ],
    });
    assert.equal(request.wait, true);
    assert.deepEqual(request.lastAssistant, {
      text: 'held in run_0123456789abcdef01234567',
      runId: 'run_0123456789abcdef01234567',
      eventId: 9,
    });
  });

  it('takes the fields SDKs add unasked (sampling, limits, ids, stream options) without complaint', () => {
    const request = parseChatRequest({
      model: 'openai:m',
      messages: [
        { role: 'developer', content: 'Be brief.', name: 'ops' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }], name: 'alice' },
      ],
      temperature: 0.2,
      top_p: 1,
      max_tokens: 100,
      max_completion_tokens: 100,
      presence_penalty: 0,
      frequency_penalty: 0,
      seed: 7,
      stop: ['\n\n'],
      logit_bias: {},
      logprobs: false,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      response_format: { type: 'text' },
      store: false,
      reasoning_effort: 'low',
      service_tier: 'auto',
      stream: true,
      stream_options: { include_usage: true },
      n: 1,
    });
    assert.equal(request.input, 'hi');
    assert.deepEqual(request.history, [{ role: 'system', content: 'Be brief.' }]);
    assert.equal(request.stream, true);
    assert.equal(request.includeUsage, true);
  });

  it('refuses what it cannot honour, naming the field and the fix', () => {
    refused(undefined, /request body is required/);
    refused({ model: 'openai:m', messages: [] }, /messages: must hold at least one message/);
    refused({ messages: [user('hi')] }, /model is required/);
    refused({ model: 'openai:m', messages: [user('hi')], n: 2 }, /n must be 1/);
    refused({ model: 'openai:m', messages: [user('hi')], audio: { voice: 'alloy' } }, /audio output is not supported/);
    refused({ model: 'openai:m', messages: [user('hi')], modalities: ['text', 'audio'] }, /modalities must be/);
    refused(
      { model: 'openai:m', messages: [user('hi')], response_format: { type: 'json_object' } },
      /response_format "json_object" is not supported/,
    );
    refused(
      { model: 'openai:m', messages: [user('hi')], tool_choice: 'required' },
      /tool_choice must be "auto" or "none"/,
    );
    refused(
      { model: 'openai:m', messages: [user([{ type: 'image_url', image_url: { url: 'https://x/y.png' } }])] },
      /messages\[0\]\.content\[0\]: "image_url" parts are not supported/,
    );
    refused(
      { model: 'openai:m', messages: [user([{ type: 'file', file: { file_id: 'f' } }])] },
      /"file" parts are not supported/,
    );
    refused({ model: 'openai:m', messages: [{ role: 'function', content: 'x', name: 'f' }] }, /role must be/);
    refused(
      { model: 'openai:m', messages: [user('hi')], functions: [{ name: 'f', parameters: {} }] },
      /"functions" and "function_call" \(deprecated by OpenAI\) are not supported: declare the functions in "tools"/,
    );
    refused(
      { model: 'openai:m', messages: [user('hi'), { role: 'tool', tool_call_id: 'nope', content: 'x' }] },
      /tool_call_id "nope" answers no tool call/,
    );
    refused(
      { model: 'openai:m', messages: [user('hi')], tools: [{ type: 'function', function: { name: 'bad name' } }] },
      /tools\.0\.function\.name: must be 1 to 64 letters/,
    );
    refused(
      {
        model: 'openai:m',
        messages: [user('hi')],
        tools: [
          { type: 'function', function: { name: 'f' } },
          { type: 'function', function: { name: 'f' } },
        ],
      },
      /tools\[1\]: the name "f" is used twice/,
    );
    refused(
      {
        model: 'openai:m',
        messages: [user('hi')],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }],
      },
      /parameters must be a JSON Schema of type "object"/,
    );
    refused(
      { model: 'openai:m', messages: [user('hi')], toolgate: { wiat: true } },
      /unknown field "wiat" in toolgate/,
    );
  });
});
