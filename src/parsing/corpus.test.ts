// The hand-written corpus of what small/local models really emit
// (test/fixtures/parsing/*.jsonl): every case must match exactly, and no
// negative (prose, examples, quoted data, undeclared tools, truncation) may
// ever yield a call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { loadCorpus, runCase } from '../../test/fixtures/parsing/corpus.ts';
import type { CorpusCase } from '../../test/fixtures/parsing/corpus.ts';

const corpus = loadCorpus();
const negatives = corpus.filter((c) => c.expect.length === 0);

function matches(c: CorpusCase): boolean {
  const run = runCase(c);
  return (
    isDeepStrictEqual(run.calls, c.expect) &&
    (c.diagnostics ?? []).every((code) => run.diagnostics.includes(code)) &&
    (c.content === undefined || run.content === c.content)
  );
}

describe('parsing corpus', () => {
  it('has at least 150 cases, 30 negatives, unique ids, and covers every family', () => {
    assert.ok(corpus.length >= 150, `only ${corpus.length} cases`);
    assert.ok(negatives.length >= 30, `only ${negatives.length} negatives`);
    assert.equal(new Set(corpus.map((c) => c.id)).size, corpus.length, 'duplicate case id');
    const families = new Set(corpus.map((c) => c.family));
    for (const family of ['hermes', 'qwen3-coder', 'glm', 'mistral', 'llama', 'function-tag', 'pythonic', 'deepseek', 'minimax', 'fence', 'prose', 'seed-000', 'seed-001', 'seed-003', 'openai', 'structured', 'repair', 'native', 'negative']) {
      assert.ok(families.has(family), `no case for family ${family}`);
    }
  });

  for (const c of corpus) {
    it(`${c.id} (${c.source})`, () => {
      const run = runCase(c);
      assert.deepEqual(run.calls, c.expect);
      for (const code of c.diagnostics ?? []) assert.ok(run.diagnostics.includes(code), `expected diagnostic ${code}, got ${run.diagnostics.join(', ') || 'none'}`);
      if (c.content !== undefined) assert.equal(run.content, c.content);
    });
  }

  it('matches every case exactly and never turns a negative into a call', () => {
    const exact = corpus.filter(matches).length;
    const rate = (100 * exact) / corpus.length;
    console.log(`parsing corpus: ${exact}/${corpus.length} exact (${rate.toFixed(1)}%), ${negatives.length} negatives`);
    const leaked = negatives.filter((c) => runCase(c).calls.length > 0).map((c) => c.id);
    assert.deepEqual(leaked, []);
    assert.equal(exact, corpus.length);
  });
});
