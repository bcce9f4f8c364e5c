import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findMinimaxCalls } from './minimax.ts';

describe('findMinimaxCalls', () => {
  it('reads every <invoke> with its parameters', () => {
    const text = '<minimax:tool_call>\n<invoke name="a">\n<parameter name="x">1</parameter>\n</invoke>\n<invoke name=\'b\'>\n<parameter name="y">text</parameter>\n</invoke>\n</minimax:tool_call>';
    const [env] = findMinimaxCalls(text);
    assert.equal(env?.span.end, text.length);
    assert.deepEqual(
      env?.payloads.map((p) => (p.kind === 'named' ? [p.name, p.args] : p.kind)),
      [
        ['a', { kind: 'object', value: { x: 1 } }],
        ['b', { kind: 'object', value: { y: 'text' } }],
      ],
    );
  });

  it('reports an invoke without a name and a block without invokes', () => {
    assert.equal(findMinimaxCalls('<minimax:tool_call><invoke>x</invoke></minimax:tool_call>')[0]?.payloads[0]?.kind, 'malformed');
    assert.equal(findMinimaxCalls('<minimax:tool_call>hello</minimax:tool_call>')[0]?.payloads[0]?.kind, 'malformed');
  });
});
