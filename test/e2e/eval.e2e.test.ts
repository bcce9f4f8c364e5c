// `toolgate eval` in real processes on the example suite (scripted models, the
// power-exchange server): the known table and exit code, the JSON report, a
// failing case that `toolgate runs show` opens, --min-pass, and suite errors.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/processes.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/power-exchange/eval/', import.meta.url));
const SERVER = fileURLToPath(new URL('../../examples/power-exchange/server.ts', import.meta.url));

describe('toolgate eval (real processes)', () => {
  let dir: string;
  const cli = (args: string[]) =>
    runCli(args, { env: { TOOLGATE_HOME: join(dir, 'home'), TOOLGATE_URL: '' }, cwd: dir, timeoutMs: 120_000 });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-eval-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the example suite as written: every case passes with react and with a plan', async () => {
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await cli(['eval', join(EXAMPLE, 'suite.yaml'), '--out', out]);
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      new RegExp(
        String.raw`^strategy +model +passed +rate +avg cost +p50 latency\nreact +scripted +3\/` +
          String.raw`3 +100% +\$0\.0000 +\d+ ms\nplan +scripted +3\/3 +100% +\$0\.0000 +\d+ ms\n$`,
      ),
    );
    assert.equal(stderr.match(/^✓ /gm)?.length, 6, stderr);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      results: { passed: boolean; runId: string }[];
      byIntent: { intent: string; strategy: string; passRate: number; runs: number }[];
    };
    assert.equal(report.results.length, 6);
    assert.deepEqual(report.byIntent.map((r) => `${r.intent}/${r.strategy}=${r.passRate}x${r.runs}`).sort(), [
      'answer/plan=1x1',
      'answer/react=1x1',
      'change/plan=1x1',
      'change/react=1x1',
      'lookup/plan=1x1',
      'lookup/react=1x1',
    ]);
    const shown = await cli(['runs', 'show', report.results[0]?.runId ?? '']);
    assert.match(shown.stdout, /status +completed/, 'the eval runs are stored like any run');
  });

  it(
    'a failing check: the failure with its run id, exit 1 ' + 'under --min-pass, 0 at a lower bar; --repeat and --json',
    async () => {
      const copy = join(dir, 'suite');
      cpSync(EXAMPLE, copy, { recursive: true });
      writeFileSync(
        join(copy, 'toolgate.yaml'),
        `servers:\n  power-exchange:\n    command: ${JSON.stringify(process.execPath)}\n ` +
          `   args: [${JSON.stringify(SERVER)}]\nstream: false\n`,
      );
      const suite = readFileSync(join(copy, 'suite.yaml'), 'utf8').replace(
        'output: { contains: "86.50" }',
        'output: { contains: "99.99" }',
      );
      writeFileSync(join(copy, 'suite.yaml'), suite);
      const failed = await cli(['eval', join(copy, 'suite.yaml')]);
      assert.equal(failed.code, 1, failed.stderr);
      assert.match(failed.stdout, /react +scripted +2\/3 +67%/);
      assert.match(
        failed.stdout,
        new RegExp(
          String.raw`✗ market-lookup \[react × scripted #1\] (run_\w+): output: expe` +
            String.raw`cted it to contain "99\.99"; got "DE base last traded at 86\.50`,
        ),
      );
      assert.match(failed.stderr, /below --min-pass 1: react × scripted \(67%\), plan × scripted \(67%\)/);
      const runId =
        /✗ market-lookup \[plan × scripted #1\] (run_\w+)/.exec(failed.stdout)?.[1] ?? assert.fail(failed.stdout);
      assert.match((await cli(['runs', 'show', runId])).stdout, /answer +DE base last traded at 86\.50/);

      const lenient = await cli(['eval', join(copy, 'suite.yaml'), '--min-pass', '60%', '--repeat', '2', '--json']);
      assert.equal(lenient.code, 0, lenient.stderr);
      const report = JSON.parse(lenient.stdout) as { summary: { strategy: string; passed: number; total: number }[] };
      assert.deepEqual(
        report.summary.map((g) => `${g.strategy} ${g.passed}/${g.total}`),
        ['react 4/6', 'plan 4/6'],
      );
    },
  );

  it('a broken suite is exit 2 naming the file and the key, before anything runs', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'cases:\n  - name: x\n    input: hi\n    expect: { output: { matches: "(" }, callz: [] }\n');
    const result = await cli(['eval', bad]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /bad\.yaml/);
    assert.match(result.stderr, /callz/);
    const regex = join(dir, 'regex.yaml');
    writeFileSync(regex, 'cases:\n  - name: x\n    input: hi\n    expect: { output: { matches: "(" } }\n');
    const bad2 = await cli(['eval', regex]);
    assert.equal(bad2.code, 2);
    assert.match(bad2.stderr, /cases\[0\] \(x\)\.expect\.output\.matches: not a regular expression/);
    assert.equal((await cli(['eval', join(dir, 'missing.yaml')])).code, 2);
  });
});
