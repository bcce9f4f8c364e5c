// The routes a browser console reads: models, filtered run summaries, the log as a download.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../core/events.ts';
import type { Run } from '../../core/runs.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const ACME = 'key-acme-0123456789';
const GLOBEX = 'key-globex-0123456789';
type Page = { runs: { id: string; input: string; strategy?: string }[]; nextCursor?: string };
type ErrorBody = { error: { code: string; message: string } };

describe('console API routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore(), {
      apiKeys: [
        { key: ACME, tenantId: 'acme' },
        { key: GLOBEX, tenantId: 'globex' },
      ],
    });
  });
  after(() => server.close());

  it('GET /v1/models answers the caller’s tenant’s models and the default, also as OpenAI’s list', async () => {
    server.service.models = (caller) =>
      caller.tenantId === 'acme'
        ? { default: 'openai:gpt-4o-mini', models: ['openai:gpt-4o-mini', 'openai:o3', 'openai:gpt-5*'] }
        : { models: ['ollama:*'] };
    const model = (id: string) => ({ id, object: 'model', created: 0, owned_by: 'toolgate' });
    assert.deepEqual(await (await server.call('/v1/models', { key: ACME })).json(), {
      default: 'openai:gpt-4o-mini',
      models: ['openai:gpt-4o-mini', 'openai:o3', 'openai:gpt-5*'],
      object: 'list',
      data: [model('openai:gpt-4o-mini'), model('openai:o3')],
    });
    assert.deepEqual(await (await server.call('/v1/models', { key: GLOBEX })).json(), {
      models: ['ollama:*'],
      object: 'list',
      data: [],
    });
    assert.equal((await server.call('/v1/models')).status, 401);
    assert.equal((await server.call('/v1/models?x=1', { key: ACME })).status, 400);
  });

  it('GET /v1/runs filters by strategy and q, pages with a cursor, and summaries carry the strategy', async () => {
    const created: Run[] = [];
    for (let i = 0; i < 6; i++) {
      const body = {
        input: `${i % 2 === 0 ? 'Buy' : 'Sell'} ${i} MW`,
        threadId: 'console-filters',
        ...(i === 5 ? {} : { strategy: i % 3 === 0 ? 'plan' : 'react' }),
      };
      created.push((await (await server.call('/v1/runs', { key: ACME, body })).json()) as Run);
    }
    await server.call('/v1/runs', {
      key: GLOBEX,
      body: { input: 'Buy for globex', threadId: 'console-filters', strategy: 'plan' },
    });
    const get = async (query: string): Promise<Page> => {
      const response = await server.call(`/v1/runs?threadId=console-filters&${query}`, { key: ACME });
      assert.equal(response.status, 200, query);
      return (await response.json()) as Page;
    };
    const all = await get('limit=10');
    assert.deepEqual(
      all.runs.map((r) => r.strategy),
      [undefined, 'react', 'plan', 'react', 'react', 'plan'],
      'strategy in every summary that has settings',
    );
    const first = await get('strategy=plan&limit=1');
    assert.deepEqual(
      first.runs.map((r) => r.input),
      ['Sell 3 MW'],
    );
    assert.ok(first.nextCursor !== undefined);
    const second = await get(`strategy=plan&limit=1&cursor=${first.nextCursor}`);
    assert.deepEqual(
      second.runs.map((r) => r.input),
      ['Buy 0 MW'],
    );
    const buys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(`q=buy&limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`);
      buys.push(...page.runs.map((r) => r.input));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(buys, ['Buy 4 MW', 'Buy 2 MW', 'Buy 0 MW'], 'case-insensitive, this tenant only');
    const target = created[1] as Run;
    assert.deepEqual(
      (await get(`q=${target.id.slice(-8)}`)).runs.map((r) => r.id),
      [target.id],
      'q matches ids',
    );
    assert.deepEqual((await get('q=sell&strategy=react&fields=id,strategy')).runs, [
      { id: (created[1] as Run).id, strategy: 'react' },
    ]);
  });

  it('refuses an unknown strategy and a q longer than 200 characters', async () => {
    const strategy = await server.call('/v1/runs?strategy=fast', { key: ACME });
    assert.equal(strategy.status, 400);
    assert.match(
      ((await strategy.json()) as ErrorBody).error.message,
      /strategy must be one of react, plan, reflect, auto/,
    );
    assert.equal((await server.call(`/v1/runs?q=${'x'.repeat(200)}`, { key: ACME })).status, 200);
    const long = await server.call(`/v1/runs?q=${'x'.repeat(201)}`, { key: ACME });
    assert.equal(long.status, 400);
    assert.match(((await long.json()) as ErrorBody).error.message, /q must be at most 200 characters/);
  });

  it('GET /v1/runs/{id}/events?format=jsonl sends the whole log, one event per line, as a download', async () => {
    const run = (await (await server.call('/v1/runs', { key: ACME, body: { input: 'log me' } })).json()) as Run;
    await server.service.emitDeltas(run.id, { count: 1100 }); // more than two pages of the store's reads
    await server.service.finish(run.id);
    const response = await server.call(`/v1/runs/${run.id}/events?format=jsonl`, { key: ACME });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${run.id}.jsonl"`);
    const text = await response.text();
    assert.ok(text.endsWith('\n'));
    const events = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    assert.deepEqual(events, await server.service.store.readEvents(run.id, { limit: 10_000 }));
    assert.ok(events.length > 1100);
    assert.equal(events.at(-1)?.type, 'run_completed');
    assert.equal((await server.call(`/v1/runs/${run.id}/events?format=jsonl`, { key: GLOBEX })).status, 404);
    assert.equal((await server.call(`/v1/runs/${run.id}/events?format=csv`, { key: ACME })).status, 400);
  });

  it('names the download after the run id with unsafe characters replaced', async () => {
    const store = server.service.store;
    const odd = await store.createRun({ id: 'run_"a\\b;c', input: 'odd', model: 'm', tenantId: 'acme' });
    const response = await server.call(`/v1/runs/${encodeURIComponent(odd.id)}/events?format=jsonl`, { key: ACME });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-disposition'), 'attachment; filename="run__a_b_c.jsonl"');
    assert.equal(await response.text(), '');
  });
});
