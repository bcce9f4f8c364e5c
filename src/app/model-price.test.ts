import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceFor } from './model-price.ts';

const cheap = { inputPerMTok: 0.15, outputPerMTok: 0.6 };
const dear = { inputPerMTok: 2.5, outputPerMTok: 10 };

describe('priceFor', () => {
  it('the most specific pattern wins', () => {
    const prices = { 'openai:*': dear, 'openai:gpt-4o-mini': cheap };
    assert.equal(priceFor({ prices, model: 'openai:gpt-4o-mini', cwd: '/srv' }), cheap);
    assert.equal(priceFor({ prices, model: 'openai:gpt-4o', cwd: '/srv' }), dear);
    assert.equal(priceFor({ prices, model: 'anthropic:claude-sonnet-4-5', cwd: '/srv' }), undefined);
  });

  it('a scripted model is priced by the file it names, however either side spells it', () => {
    const prices = { 'scripted:./demo.json': cheap };
    assert.equal(priceFor({ prices, model: 'scripted:/srv/demo.json', cwd: '/srv' }), cheap);
    assert.equal(
      priceFor({ prices: { 'scripted:/srv/demo.json': cheap }, model: 'scripted:demo.json', cwd: '/srv' }),
      cheap,
    );
    assert.equal(priceFor({ prices, model: 'scripted:/elsewhere/demo.json', cwd: '/srv' }), undefined);
  });
});
