import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyTool } from './classify-tool.ts';
import { ECHO, GET_ORDER_BOOK, PLACE_ORDER, WRITE_FILE, mcpTool } from '../../test/support/test-tools.ts';

describe('classifyTool', () => {
  it('reads readOnlyHint from the MCP annotations', () => {
    assert.deepEqual(classifyTool(GET_ORDER_BOOK), { effect: 'read', source: 'annotation' });
    assert.deepEqual(classifyTool(PLACE_ORDER), { effect: 'write', source: 'annotation' });
    assert.deepEqual(classifyTool(WRITE_FILE), { effect: 'write', source: 'annotation' });
  });

  it('treats an unannotated tool as a write, as the MCP spec says', () => {
    assert.deepEqual(classifyTool(ECHO), { effect: 'write', source: 'default' });
    assert.deepEqual(classifyTool(mcpTool('s', 't', { annotations: { title: 'T', destructiveHint: false } })), {
      effect: 'write',
      source: 'default',
    });
  });

  it('lets configuration override the annotations both ways', () => {
    assert.deepEqual(classifyTool(ECHO, 'read'), { effect: 'read', source: 'config' });
    assert.deepEqual(classifyTool(GET_ORDER_BOOK, 'write'), { effect: 'write', source: 'config' });
  });
});
