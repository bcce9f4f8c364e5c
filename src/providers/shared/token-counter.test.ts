import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadTokenCounter } from './token-counter.ts';

describe('loadTokenCounter', () => {
  it('counts tokens with the cl100k_base encoding (the vectors OpenAI publishes for it)', async () => {
    const count = await loadTokenCounter();
    // OpenAI's cookbook: "tiktoken is great!" is [83, 1609, 5963, 374, 2294, 0] in cl100k_base.
    assert.equal(count('tiktoken is great!'), 6);
    assert.equal(count('hello world'), 2);
    assert.equal(count(''), 0);
    // Not characters over four: JSON punctuation and a euro sign cost more than their share.
    assert.equal(count('{"area":"DE-LU"}'), 7);
    assert.equal(count('Bought 5 MW at 87.40 €/MWh.'), 15);
  });

  it('counts text that looks like a special token as text instead of refusing it', async () => {
    const count = await loadTokenCounter();
    // A model or a tool may write "<|endoftext|>": it is part of the conversation, not a control token.
    assert.equal(count('a <|endoftext|> b'), 8);
  });

  it('loads the tokenizer once per process', async () => {
    assert.equal(await loadTokenCounter(), await loadTokenCounter());
  });
});
