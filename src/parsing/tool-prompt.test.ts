import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from './extract-tool-calls.ts';
import { renderToolPrompt, TOOL_CALL_FORMAT, toolCallJsonSchema } from './tool-prompt.ts';

const tools = [
  {
    name: 'get_weather',
    description: 'Current weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'list_devices', description: '', inputSchema: { type: 'object', properties: {} } },
];

describe('renderToolPrompt', () => {
  it('lists each tool with its schema and asks for one exact format', () => {
    const prompt = renderToolPrompt(tools);
    assert.ok(prompt.includes('## get_weather\nCurrent weather for a city.'));
    assert.ok(prompt.includes('{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}'));
    assert.ok(prompt.includes(TOOL_CALL_FORMAT));
    assert.ok(prompt.includes('If no tool is needed, answer in plain text'));
    assert.ok(prompt.includes('## list_devices\n(no description)'));
  });

  it('takes a heading', () => {
    assert.ok(renderToolPrompt(tools, { heading: '## Available tools' }).startsWith('## Available tools\n'));
  });

  it('asks for a format the extractor reads', () => {
    const reply = TOOL_CALL_FORMAT.replace('<tool name>', 'get_weather').replace(
      '{<arguments as JSON>}',
      '{"city": "Paris"}',
    );
    assert.deepEqual(
      extractToolCalls(reply, { tools: ['get_weather'] }).calls.map((c) => c.arguments),
      [{ city: 'Paris' }],
    );
  });
});

describe('toolCallJsonSchema', () => {
  it('describes {tool_calls: [{name: enum, arguments: object}], answer?}', () => {
    const schema = toolCallJsonSchema(tools);
    assert.deepEqual(schema['required'], ['tool_calls']);
    const items = (schema['properties'] as Record<string, { items: Record<string, unknown> }>)['tool_calls']?.items;
    assert.deepEqual(items?.['properties'], {
      name: { type: 'string', enum: ['get_weather', 'list_devices'] },
      arguments: { type: 'object' },
    });
  });

  it('can constrain each call to its own tool schema', () => {
    const schema = toolCallJsonSchema(tools, { perToolArguments: true });
    const items = (
      schema['properties'] as Record<string, { items: { anyOf: Record<string, Record<string, unknown>>[] } }>
    )['tool_calls']?.items;
    assert.equal(items?.anyOf.length, 2);
    assert.deepEqual(items?.anyOf[0]?.['properties']?.['arguments'], tools[0]?.inputSchema);
  });
});
