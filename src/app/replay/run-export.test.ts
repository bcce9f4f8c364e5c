import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { readAllEvents } from './load-runs.ts';
import type { RecordedRun } from './recorded-run.ts';
import { exportLines, readExport } from './run-export.ts';

async function twoRuns(): Promise<RecordedRun[]> {
  const store = new MemoryRunStore();
  const out: RecordedRun[] = [];
  for (const input of ['first', 'second\nwith "quotes"']) {
    const run = await store.createRun({ input, model: 'fake:model' });
    await store.append(
      run.id,
      [
        draft('user_message', { text: input }),
        draft('run_completed', {
          output: 'done',
          usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
          steps: 1,
        }),
      ],
      { status: 'completed', output: 'done' },
    );
    const stored = await store.getRun(run.id);
    assert.ok(stored !== undefined);
    out.push({ run: stored, events: await readAllEvents(store, run.id) });
  }
  return out;
}

function refused(text: string, pattern: RegExp): void {
  assert.throws(
    () => readExport(text, 'runs.jsonl'),
    (error: unknown) => error instanceof ToolgateError && error.code === 'usage' && pattern.test(error.message),
  );
}

describe('run export', () => {
  it('round trip: runs written one after the other read back exactly, in order', async () => {
    const runs = await twoRuns();
    const text = runs.map(exportLines).join('');
    assert.equal(text.split('\n').length, 1 + 3 + 3);
    assert.deepEqual(JSON.parse(text.split('\n')[0] ?? ''), { toolgateExport: 1, run: runs[0]?.run });
    assert.deepEqual(readExport(text), runs);
    // Blank lines (an editor's last newline, CRLF) are no trouble.
    assert.deepEqual(readExport(`\n${text.replaceAll('\n', '\r\n')}\n\n`), runs);
  });

  it('a bad line is refused with its line number and what is wrong', async () => {
    const [run] = await twoRuns();
    assert.ok(run !== undefined);
    const [header = '', first = '', second = ''] = exportLines(run).trim().split('\n');
    refused(`${header}\n{not json\n`, /^runs\.jsonl, line 2: not JSON/);
    refused(`${first}\n`, /^runs\.jsonl, line 1: an event before any run header/);
    refused(`${header}\n${second}\n`, /^runs\.jsonl, line 2: event id 2 where 1 comes next/);
    refused(
      `${header}\n${first.replace(run.run.id, 'run_other')}\n`,
      /line 2: an event of run run_other under the header/,
    );
    refused(`${header}\n${first.replace('"user_message"', '"user_mesage"')}\n`, /unknown event type "user_mesage"/);
    refused(header.replace('"toolgateExport":1', '"toolgateExport":2'), /line 1: export version 2 is not one/);
    refused('{"toolgateExport":1,"run":{"id":"x"}}', /line 1: the header's "run" is not a run/);
    refused('\n\n', /^runs\.jsonl: no run in it/);
  });
});
