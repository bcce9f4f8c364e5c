import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import type { ListRunsQuery } from './ports/run-store.ts';
import { listRunsFiltered, runMatches, runStrategy } from './run-filter.ts';
import type { Run } from './runs.ts';

async function storeWith(count: number, match: (i: number) => boolean): Promise<MemoryRunStore> {
  const store = new MemoryRunStore();
  for (let i = 0; i < count; i++) await store.createRun({ input: `${match(i) ? 'hit' : 'miss'} ${i}`, model: 'm' });
  return store;
}

describe('listRunsFiltered', () => {
  it('walks every match exactly once, newest first, whatever the page size and the spacing of matches', async () => {
    const store = await storeWith(450, (i) => i % 7 === 0 || (i > 190 && i < 215));
    const expected = (await store.listRuns({ limit: 1000 })).runs
      .filter((r) => r.input.startsWith('hit'))
      .map((r) => r.input);
    for (const limit of [1, 3, 50, 200]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await listRunsFiltered(
          (q) => store.listRuns(q),
          { limit, ...(cursor === undefined ? {} : { cursor }) },
          { q: 'HIT' },
        );
        assert.ok(page.runs.length <= limit);
        seen.push(...page.runs.map((r) => r.input));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 500);
      assert.deepEqual(seen, expected, `limit ${limit}`);
    }
  });

  it('answers with what it found and a cursor after examining maxExamined runs', async () => {
    const store = await storeWith(700, (i) => i === 5);
    const calls: ListRunsQuery[] = [];
    const list = (q: ListRunsQuery) => (calls.push(q), store.listRuns(q));
    const first = await listRunsFiltered(list, { limit: 10 }, { q: 'hit', maxExamined: 300 });
    assert.deepEqual(first.runs, []);
    assert.ok(first.nextCursor !== undefined);
    assert.ok(calls.length <= 2, `read ${calls.length} pages`);
    const rest = await listRunsFiltered(list, { limit: 10, cursor: first.nextCursor }, { q: 'hit' });
    assert.deepEqual(
      rest.runs.map((r) => r.input),
      ['hit 5'],
    );
    assert.equal(rest.nextCursor, undefined);
  });

  it('without a filter it is the store’s own page', async () => {
    const store = await storeWith(5, () => true);
    const page = await listRunsFiltered((q) => store.listRuns(q), { limit: 2 }, {});
    assert.deepEqual(page, await store.listRuns({ limit: 2 }));
  });
});

describe('runMatches', () => {
  const run = (settings?: Partial<NonNullable<Run['settings']>>): Run =>
    ({
      id: 'run_ABC123',
      input: 'Buy 5 MW',
      settings: settings === undefined ? undefined : { strategy: 'react', ...settings },
    }) as Run;

  it('matches strategy from the settings (none for runs without settings) and q in input or id, ignoring case', () => {
    assert.equal(runStrategy(run()), undefined);
    assert.equal(runStrategy(run({ strategy: 'plan' })), 'plan');
    assert.equal(runMatches(run(), { strategy: 'react' }), false);
    assert.equal(runMatches(run({}), { strategy: 'react' }), true);
    assert.equal(runMatches(run({ strategy: 'plan' }), { strategy: 'react' }), false);
    assert.equal(runMatches(run(), { q: 'buy 5' }), true);
    assert.equal(runMatches(run(), { q: 'abc1' }), true);
    assert.equal(runMatches(run(), { q: 'sell' }), false);
    assert.equal(runMatches(run({ strategy: 'plan' }), { q: 'buy', strategy: 'plan' }), true);
  });
});
