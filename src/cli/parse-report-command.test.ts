import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createDatabase, dropDatabase, postgresSkip } from '../../test/support/postgres.ts';
import { openStore } from '../app/open-store.ts';
import { parseReport, type ParseReport } from '../app/parse-report.ts';
import { draft, type RunEventDataMap, type RunStore } from '../core/index.ts';
import { main } from './main.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-parse-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { TOOLGATE_HOME: join(dir, 'home') },
    cwd: dir,
  });
  return { code, stdout, stderr };
}

function reply(
  step: number,
  text: string,
  diagnostics?: { code: string; message: string; repairs?: string[] }[],
): RunEventDataMap['assistant_message'] {
  return {
    step,
    text,
    toolCalls: [],
    finishReason: 'stop',
    latencyMs: 5,
    toolMode: 'native',
    attempt: 1,
    ...(diagnostics === undefined ? {} : { diagnostics }),
  };
}

const LONG = `Let me look that up for you. ${'x'.repeat(400)} <tool_call>{"name": "lookup", "arguments": {"id": 4`;

/** Three runs of two models, written through the store API. */
async function record(store: RunStore): Promise<string[]> {
  const qwen1 = await store.createRun({ input: 'a', model: 'ollama:qwen2.5:7b' });
  await store.append(qwen1.id, [
    draft(
      'assistant_message',
      reply(1, '<tool_call>{"name": "lookup", "arguments": {"id": 4,}}', [
        {
          code: 'repaired',
          message: 'Repaired the call to "lookup": removed_trailing_commas, missing_closer.',
          repairs: ['removed_trailing_commas', 'missing_closer'],
        },
      ]),
    ),
    draft('assistant_message', reply(2, 'The order shipped.')),
    // Recorded before `repairs` was kept: the kinds come from the message.
    draft(
      'assistant_message',
      reply(3, '<tool_call>{"name": "lookup", "arguments": {"id": 5}}', [
        { code: 'repaired', message: 'Repaired the call to "lookup": missing_closer.' },
      ]),
    ),
  ]);
  const qwen2 = await store.createRun({ input: 'b', model: 'ollama:qwen2.5:7b' });
  await store.append(qwen2.id, [
    draft(
      'assistant_message',
      reply(1, LONG, [
        { code: 'truncated', message: 'The call to "lookup" was cut off.' },
        { code: 'text_call_ignored', message: 'not executed' },
      ]),
    ),
  ]);
  const llama = await store.createRun({ input: 'c', model: 'openai:llama3.1' });
  await store.append(llama.id, [
    draft(
      'assistant_message',
      reply(1, '<function=lookup>{"id": 6}</function>', [
        { code: 'malformed_call', message: 'The envelope holds nothing that reads as a call.' },
      ]),
    ),
  ]);
  return [qwen1.id, qwen2.id, llama.id];
}

function group(report: ParseReport, model: string, kind: string) {
  return report.groups.find((g) => g.model === model && g.kind === kind);
}

function checkReport(report: ParseReport, runIds: string[]): void {
  assert.equal(report.runs, 3);
  assert.equal(report.replies, 5);
  assert.equal(report.flagged, 4);
  const closer = group(report, 'ollama:qwen2.5:7b', 'missing_closer');
  assert.equal(closer?.type, 'repair');
  assert.equal(closer?.replies, 2, 'one with repairs recorded, one read from its message');
  assert.deepEqual({ runId: closer?.example.runId, seq: closer?.example.seq }, { runId: runIds[0], seq: 1 });
  assert.equal(closer?.example.excerpt, '<tool_call>{"name": "lookup", "arguments": {"id": 4,}}');
  assert.equal(group(report, 'ollama:qwen2.5:7b', 'removed_trailing_commas')?.replies, 1);
  const cut = group(report, 'ollama:qwen2.5:7b', 'truncated');
  assert.equal(cut?.type, 'diagnostic');
  assert.equal(cut?.example.runId, runIds[1]);
  assert.ok((cut?.example.excerpt.length ?? 0) <= 203, 'a long reply is cut to its start and its end');
  assert.match(cut?.example.excerpt ?? '', /^Let me look that up .* … .*"id": 4$/);
  assert.equal(group(report, 'ollama:qwen2.5:7b', 'text_call_ignored')?.replies, 1);
  assert.equal(
    group(report, 'openai:llama3.1', 'malformed_call')?.example.message,
    'The envelope holds nothing that reads as a call.',
  );
  assert.equal(report.groups.length, 5);
  assert.equal(report.groups[0]?.kind, 'missing_closer', 'most replies first');
}

describe('toolgate parse report', () => {
  it('groups the recorded replies of a SQLite file by model and kind, with counts and one example each', async () => {
    const path = join(dir, 'runs.db');
    const store = await openStore(`sqlite:${path}`);
    const runIds = await record(store);
    await store.close();

    const json = await cli('parse', 'report', '--store', `sqlite:${path}`, '--json');
    assert.equal(json.code, 0, json.stderr);
    checkReport(JSON.parse(json.stdout) as ParseReport, runIds);

    const text = await cli('parse', 'report', '--store', 'runs.db');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^4 of 5 replies in 3 runs were repaired or had diagnostics/);
    assert.match(
      text.stdout,
      /\nollama:qwen2\.5:7b\n {6}2 {2}repair missing_closer\n {9}e\.g\. run_\S+ #1 \(step 1\): /,
    );

    const onlyLlama = JSON.parse(
      (await cli('parse', 'report', '--store', path, '--model', 'openai:*', '--json')).stdout,
    ) as ParseReport;
    assert.deepEqual(
      onlyLlama.groups.map((g) => [g.model, g.kind, g.replies]),
      [['openai:llama3.1', 'malformed_call', 1]],
    );
    assert.equal(onlyLlama.runs, 1);
  });

  it('reads a page at a time: one run and two events per read give the same report', async () => {
    const store = await openStore(`sqlite:${join(dir, 'paged.db')}`);
    try {
      const runIds = await record(store);
      let reads = 0;
      const counting = new Proxy(store, {
        get(target, key, receiver) {
          if (key === 'readEvents')
            return (...args: Parameters<RunStore['readEvents']>) => (reads++, target.readEvents(...args));
          const value: unknown = Reflect.get(target, key, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      checkReport(await parseReport({ store: counting, runPage: 1, eventPage: 2 }), runIds);
      assert.ok(reads >= 4, `the 3-event run is read in pages (${reads} reads)`);
    } finally {
      await store.close();
    }
  });

  it(
    'a store that does not exist is a usage error naming ' + 'it; the default store with no runs is an empty report',
    async () => {
      const missing = await cli('parse', 'report', '--store', 'sqlite:./nowhere/runs.db');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /there is no store at .*nowhere\/runs\.db \(check --store/);
      const empty = await cli('parse', 'report', '--json');
      assert.equal(empty.code, 0, empty.stderr);
      assert.deepEqual(JSON.parse(empty.stdout), { runs: 0, replies: 0, flagged: 0, groups: [] });
      assert.match(empty.stderr, /no runs recorded yet/);
      assert.equal((await cli('parse', 'report', '--store', 'memory:')).code, 2);
    },
  );

  it('reads PostgreSQL the same way', { skip: postgresSkip() }, async () => {
    const created: string[] = [];
    try {
      const url = await createDatabase('parse_report', created);
      const store = await openStore(url);
      let runIds: string[];
      try {
        runIds = await record(store);
      } finally {
        await store.close();
      }
      const result = await cli('parse', 'report', '--store', url, '--json');
      assert.equal(result.code, 0, result.stderr);
      checkReport(JSON.parse(result.stdout) as ParseReport, runIds);
    } finally {
      for (const name of created) await dropDatabase(name);
    }
  });
});
