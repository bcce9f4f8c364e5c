import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMessageDetailed } from './extract-message.ts';
import { parseToolCall, turnCalls } from './parse-tool-call.ts';
import { repairArguments } from './repair-arguments.ts';

const TOOLS = [{ name: 'quote', inputSchema: { type: 'object', properties: { qty: { type: 'number' } } } }];

describe('turnCalls', () => {
  it('hands on what the extractor read, recorded as JSON, with ids of its own and the model id kept', () => {
    const native = [{ id: 'm1', name: 'quote', arguments: "{'qty': 3,}" }];
    const [call] = turnCalls(extractMessageDetailed({ toolCalls: native, tools: TOOLS }), {
      calls: native,
      truncated: false,
    });
    assert.ok(call !== undefined && 'input' in call.parsed);
    assert.deepEqual(call.parsed.input, { qty: 3 });
    assert.match(call.parsed.id, /^call_/);
    assert.deepEqual(call.recorded, { id: call.parsed.id, name: 'quote', arguments: '{"qty":3}', providerId: 'm1' });
  });

  it('a native call the extractor did not read is recorded as it came; its arguments are read here, once', () => {
    const native = [{ id: 'm1', name: 'nope', arguments: '{"qty": 3}' }];
    const [call] = turnCalls(extractMessageDetailed({ toolCalls: native, tools: TOOLS }), {
      calls: native,
      truncated: false,
    });
    assert.equal(call?.recorded.arguments, '{"qty": 3}', 'the model text, unchanged');
    assert.deepEqual(call?.parsed, { id: call?.recorded.id, name: 'nope', input: { qty: 3 }, providerId: 'm1' });
  });

  it(
    'arguments the extractor could not read go on with its ' +
      'reason, the same as repairArguments gives, and the raw text',
    () => {
      const native = [{ id: 'm1', name: 'quote', arguments: '{"qty": 3' }];
      const extraction = extractMessageDetailed({ toolCalls: native, tools: TOOLS, finishReason: 'length' });
      const [call] = turnCalls(extraction, { calls: native, truncated: true });
      const failed = repairArguments('{"qty": 3', { truncated: true });
      assert.ok(!failed.ok && call !== undefined && 'error' in call.parsed);
      assert.deepEqual(call.parsed.error, { message: failed.message, position: failed.position });
      assert.equal(call.parsed.raw, '{"qty": 3');
      assert.equal(call.recorded.arguments, '{"qty": 3');
    },
  );

  it('calls written in the text are handed on as read, without a model id', () => {
    const extraction = extractMessageDetailed({
      text: '<tool_call>{"name": "quote", "arguments": {"qty": 1}}</tool_call>',
      tools: TOOLS,
    });
    const [call] = turnCalls(extraction, { calls: [], truncated: false });
    assert.ok(call !== undefined && 'input' in call.parsed);
    assert.deepEqual(call.parsed.input, { qty: 1 });
    assert.deepEqual(call.recorded, { id: call.parsed.id, name: 'quote', arguments: '{"qty":1}' });
  });
});

describe('parseToolCall', () => {
  it('reads a stored arguments string into input, or keeps it with why it could not be read', () => {
    assert.deepEqual(parseToolCall({ id: 'c', name: 'quote', arguments: '{"qty":2}', providerId: 'p' }), {
      id: 'c',
      name: 'quote',
      providerId: 'p',
      input: { qty: 2 },
    });
    const bad = parseToolCall({ id: 'c', name: 'quote', arguments: '[1]' });
    assert.ok('error' in bad && bad.raw === '[1]' && /JSON object/.test(bad.error.message), JSON.stringify(bad));
  });
});
