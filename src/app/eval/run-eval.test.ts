import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Toolgate } from '../toolgate.ts';
import { buildReport } from './eval-report.ts';
import { runEval } from './run-eval.ts';
import { suiteSchema } from './suite-schema.ts';

describe('runEval', () => {
  it('runs every case for each matrix model and groups the report by model; repeat multiplies the runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-eval-matrix-'));
    const alpha = join(dir, 'alpha.json');
    const beta = join(dir, 'beta.json');
    writeFileSync(alpha, JSON.stringify({ turns: [{ text: 'alpha answers' }] }));
    writeFileSync(beta, JSON.stringify({ turns: [{ text: 'beta answers' }] }));
    const toolgate = new Toolgate({ cwd: dir });
    try {
      const suite = suiteSchema.parse({
        matrix: { strategies: ['react'], models: [`scripted:${alpha}`, `scripted:${beta}`] },
        repeat: 2,
        cases: [
          { name: 'says-alpha', intent: 'answer', input: 'who are you?', expect: { output: { contains: 'alpha' } } },
        ],
      });
      const results = await runEval({ suite, toolgate });
      assert.equal(results.length, 4);
      const report = buildReport('matrix', results);
      assert.deepEqual(
        report.summary.map((g) => [g.model, `${g.passed}/${g.total}`]),
        [
          [`scripted:${alpha}`, '2/2'],
          [`scripted:${beta}`, '0/2'],
        ],
      );
      assert.deepEqual(report.byIntent, [
        { intent: 'answer', strategy: 'react', passRate: 0.5, avgCostUsd: 0, runs: 4 },
      ]);
      assert.ok(results.every((r) => r.runId.startsWith('run_') && r.status === 'completed'));
    } finally {
      await toolgate.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
