import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brokenCloserEnd, foreignTokens, isQuotedToken, TOKEN_FAMILIES } from './token-families.ts';
import type { TokenFamily } from './token-families.ts';
import { TOKEN_STREAM_MARKERS } from './token-finders.ts';

describe('TOKEN_FAMILIES', () => {
  it('gives no two families the same token', () => {
    const owner = new Map<string, string>();
    for (const [family, tokens] of Object.entries(TOKEN_FAMILIES)) {
      for (const token of Object.values(tokens)) {
        const other = owner.get(token);
        assert.ok(other === undefined || other === family, `${token} is in ${other} and ${family}`);
        owner.set(token, family);
      }
    }
  });

  it("lists every other family's tokens as foreign, and none of the family's own", () => {
    const foreign = foreignTokens('deepseek');
    assert.ok(foreign.has(TOKEN_FAMILIES.kimi.callBegin));
    assert.ok(!foreign.has(TOKEN_FAMILIES.deepseek.callBegin));
    for (const family of Object.keys(TOKEN_FAMILIES) as TokenFamily[]) {
      for (const token of Object.values(TOKEN_FAMILIES[family])) assert.ok(!foreignTokens(family).has(token));
    }
  });
});

describe('TOKEN_STREAM_MARKERS', () => {
  it('holds the stream at every call opener, Llama 4 <|python_start|> included', () => {
    for (const token of [
      TOKEN_FAMILIES.llama.pythonTag,
      TOKEN_FAMILIES.llama.pythonStart,
      TOKEN_FAMILIES.deepseek.callsBegin,
      TOKEN_FAMILIES.kimi.callBegin,
    ]) {
      assert.ok(TOKEN_STREAM_MARKERS.includes(token), token);
    }
  });
});

describe('brokenCloserEnd', () => {
  it('finds a closer with a bracket missing or changed, never the exact one or a bare word', () => {
    const closer = '<|tool_call_end|>';
    assert.equal(brokenCloserEnd('<|tool_call_end| x', 0, closer), 16);
    assert.equal(brokenCloserEnd('<tool_call_end> x', 0, closer), 15);
    assert.equal(brokenCloserEnd('|tool_call_end|>', 0, closer), 16);
    assert.equal(brokenCloserEnd('<|tool_call_end|>', 0, closer), -1);
    assert.equal(brokenCloserEnd('tool_call_end is a token', 0, closer), -1);
    assert.equal(brokenCloserEnd('[TOOL_CALL]', 0, '[/TOOL_CALL]'), -1);
    assert.equal(brokenCloserEnd('[/TOOL_CALL', 0, '[/TOOL_CALL]'), 11);
  });
});

describe('isQuotedToken', () => {
  it('is true only for a token between backticks', () => {
    assert.equal(isQuotedToken('a `[ARGS]` b', 3, 9), true);
    assert.equal(isQuotedToken('a `[ARGS] b', 3, 9), false);
  });
});
