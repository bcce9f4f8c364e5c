import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XML_FAMILIES } from './xml-families.ts';
import { lexTags } from './xml-grammar.ts';

describe('lexTags', () => {
  it("reads the families' tags with their namespaces and heads, and nothing else", () => {
    const text = '<div><｜DSML｜invoke name="a"><minimax:tool_call><function=x></function ok<p></tool_call\n<|im_end|>';
    assert.deepEqual(
      lexTags(text).map((t) => [t.ns, t.local, t.closing, t.head, t.broken, t.sentinel]),
      [
        ['｜DSML｜', 'invoke', false, ' name="a"', false, false],
        ['minimax:', 'tool_call', false, '', false, false],
        ['', 'function', false, '=x', false, false],
        ['', 'function', true, '', true, false],
        ['', 'tool_call', true, '', true, false],
        ['', '<|im_end|>', false, '', false, true],
      ],
    );
  });

  it('refuses a block tag with attributes or a head spanning lines (HTML, prose)', () => {
    assert.deepEqual(lexTags('<tool_call class="x"> <function=a\nb> <parameter>'), []);
  });

  it('lexes a flood of < in one pass', () => {
    assert.equal(lexTags('<'.repeat(200_000) + '<invoke'.repeat(20_000)).length, 0);
  });
});

describe('XML_FAMILIES', () => {
  it('spells no block opener twice: each family owns its exact tags', () => {
    const openers = XML_FAMILIES.flatMap((f) => f.blocks.map((b) => `${f.body}:${b.open}`));
    assert.equal(new Set(openers).size, openers.length);
  });
});
