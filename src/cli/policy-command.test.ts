import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportLines, readAllEvents } from '../app/replay/index.ts';
import { Toolgate } from '../app/toolgate.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import type { ModelAdapter } from '../core/index.ts';
import { main } from './main.ts';

/** A model that answers "hello" once: the recorded run the suites replay (no tools, nothing to call). */
const HELLO: ModelAdapter = {
  id: 'fake:hello',
  generate: () => Promise.resolve({ text: 'hello', toolCalls: [], finishReason: 'stop' }),
};

describe('toolgate policy (in process)', () => {
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-command-'));
    const recorder = new Toolgate({ settings: resolveSettings({}, {}, {}), model: HELLO });
    const run = await recorder.run({ input: 'say hello' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    writeFileSync(join(dir, 'hello.jsonl'), exportLines({ run, events: await readAllEvents(recorder.store, run.id) }));
    await recorder.close();
    const suite = [
      'runs:',
      '  - file: ./hello.jsonl',
      'expect:',
      '  - answerUnchanged: true',
      '  - noNewDenials: true',
    ];
    writeFileSync(join(dir, 'suite.yaml'), suite.join('\n'));
    writeFileSync(join(dir, 'not-a-policy.yaml'), 'model: openai:gpt-4o\ntools: {}\n');
    writeFileSync(join(dir, 'with-policy.yaml'), ['policy: ./not-a-policy.yaml', ...suite].join('\n'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(args: string[], options: { env?: Record<string, string>; tty?: boolean } = {}) {
    let stdout = '';
    let stderr = '';
    const code = await main(args, {
      stdout: { write: (t: string) => (stdout += t), isTTY: options.tty === true },
      stderr: { write: (t: string) => (stderr += t) },
      env: options.env ?? {},
      cwd: dir,
    });
    return { code, stdout, stderr };
  }

  it('on a terminal the marks are coloured; the summary line is last either way', async () => {
    const result = await cli(['policy', 'test', 'suite.yaml'], { tty: true });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes('\u001b[32m✓\u001b[39m answer unchanged'), result.stdout);
    assert.match(result.stdout, /\npolicy test: 2 passed, 0 failed\n$/);
  });

  it('CI=true, NO_COLOR or a pipe: no colours', async () => {
    for (const options of [{ tty: true, env: { CI: 'true' } }, { tty: true, env: { NO_COLOR: '1' } }, { tty: false }]) {
      const result = await cli(['policy', 'test', 'suite.yaml'], options);
      assert.equal(result.code, 0, result.stderr);
      assert.ok(!result.stdout.includes('\u001b['), JSON.stringify(options));
      assert.match(result.stdout, /^✓ answer unchanged \(1 run\)$/m);
      assert.match(result.stdout, /^✓ no new denials \(no call matched: it checks nothing\)$/m);
    }
  });

  it('toolgate policy alone prints its help (exit 2); an unknown subcommand or no suite is a usage error', async () => {
    const bare = await cli(['policy']);
    assert.equal(bare.code, 2);
    assert.match(bare.stdout, /^toolgate policy — /);
    assert.match(bare.stdout, /toolgate policy test +replay recorded runs/);
    const typo = await cli(['policy', 'tset', 'suite.yaml']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /toolgate policy has no command "tset" — did you mean "test"\?/);
    const none = await cli(['policy', 'test']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /toolgate policy test needs a suite file, e\.g\. /);
  });

  it("a suite's policy: file may hold only tools: and tenants: (exit 2, nothing checked)", async () => {
    const result = await cli(['policy', 'test', 'with-policy.yaml']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /not-a-policy\.yaml: model: a policy file holds only tools: and tenants:/);
    assert.equal(result.stdout, '');
  });
});
