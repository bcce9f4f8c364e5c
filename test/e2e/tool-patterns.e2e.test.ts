// A rule written for a tool that does not exist is said, in real processes: `toolgate
// tools`, `run`, `serve` and `gateway` against the power-exchange example server warn
// with the tool meant; --strict and policy.strict stop them; a server that is down
// makes its patterns unverifiable, never wrongly "matching nothing".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli, startServe } from '../support/processes.ts';

const NODE = JSON.stringify(process.execPath);
const TYPO =
  /tenants\.acme\.deny matches no tool — did you mean "power-exchange\/cancelOrder"\? \(the rule applies to nothing\)/;

const EXCHANGE = `  power-exchange:\n    command: ${NODE}\n    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]\n`;
/** A server that exits at once: it never lists its tools. */
const CRM_DOWN = `  crm:\n    command: ${NODE}\n    args: ["-e", "process.exit(3)"]\n`;

/** The example server, a deny with a typo, a glob that matches; `extra` is added at the top level. */
function config(extra = '', options: { servers?: string; tools?: string } = {}): string {
  return (
    `servers:\n${options.servers ?? EXCHANGE}tenants:\n  acme:\n    deny: ["power-exchange/cancelOrdr"]\ntools:\n ` +
    ` "power-exchange/place*": { approval: required }\n${options.tools ?? ''}${extra}`
  );
}

describe('tool patterns that match no tool', () => {
  let dir: string;
  let mock: MockOpenAI;
  const cli = (args: string[]) => runCli(args, { cwd: dir, env: { TOOLGATE_HOME: join(dir, 'home') } });
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return name;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-patterns-'));
    mock = await startMockOpenAI({ handler: () => ({ text: 'Fine.' }) });
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('toolgate tools warns with the tool meant; --strict makes it exit 2 with the same words', async () => {
    const file = write('typo.yaml', config());
    const warned = await cli(['tools', '--config', file]);
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, new RegExp(`toolgate tools: "power-exchange/cancelOrdr" in ${TYPO.source}`));
    assert.doesNotMatch(warned.stderr, /place\*/, 'a glob that matches is fine');

    const strict = await cli(['tools', '--config', file, '--strict']);
    assert.equal(strict.code, 2, strict.stderr);
    assert.match(
      strict.stderr,
      new RegExp(
        String.raw`toolgate: a tool pattern matches no tool \(--strict\):\n {2}- "power-exchange\/cancelOrd` +
          String.raw`r" in tenants\.acme\.deny matches no tool — did you mean "power-exchange\/cancelOrder"\?`,
      ),
    );
    assert.match(strict.stderr, /Fix it, or drop --strict to only warn\./);
  });

  it('toolgate run says it before the run starts', async () => {
    const { code, stderr } = await cli([
      'run',
      'hello',
      '--config',
      write('run.yaml', config()),
      '--model',
      'openai:mock',
      '--base-url',
      mock.url,
      '--store',
      'memory:',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, new RegExp(`^⚠ "power-exchange/cancelOrdr" in ${TYPO.source}$`, 'm'));
  });

  it('toolgate serve logs a warning at start; with policy.strict: true it does not start', async () => {
    const server = await startServe({
      cwd: dir,
      args: ['--config', write('serve.yaml', config()), '--store', 'memory:'],
      env: { TOOLGATE_HOME: join(dir, 'home') },
    });
    try {
      const warning = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line['pattern'] === 'power-exchange/cancelOrdr');
      assert.equal(warning?.['level'], 'warn');
      assert.equal(warning?.['where'], 'tenants.acme.deny');
      assert.match(String(warning?.['msg']), TYPO);
    } finally {
      await server.stop();
    }
    const strict = await cli([
      'serve',
      '--port',
      '0',
      '--config',
      write('strict.yaml', config('policy:\n  strict: true\n')),
      '--store',
      'memory:',
    ]);
    assert.equal(strict.code, 2, strict.stderr);
    assert.match(strict.stderr, /a tool pattern matches no tool \(policy\.strict: true\)/);
    assert.match(strict.stderr, /drop policy\.strict: true to only warn/);
  });

  it('toolgate gateway --strict does not start', async () => {
    const { code, stderr } = await cli([
      'gateway',
      '--stdio',
      '--config',
      write('gateway.yaml', config()),
      '--store',
      'memory:',
      '--strict',
    ]);
    assert.equal(code, 2, stderr);
    assert.match(stderr, TYPO);
  });

  it('a server that is down: its patterns cannot be checked, and --strict does not call them wrong', async () => {
    const file = write(
      'down.yaml',
      config('', { servers: EXCHANGE + CRM_DOWN, tools: '  "crm/deleteCustomer": { approval: required }\n' }),
    );
    const { code, stderr } = await cli(['tools', '--config', file, '--strict']);
    assert.equal(code, 2, stderr);
    assert.match(
      stderr,
      new RegExp(
        String.raw`tools\."crm\/deleteCustomer" matches no tool listed so far\. It cannot` +
          String.raw` be checked yet: it may name a tool of "crm", whose tools are not known`,
      ),
    );
    assert.doesNotMatch(stderr, /- tools\."crm\/deleteCustomer"/, 'not among the patterns that stop the command');
    assert.match(stderr, /a tool pattern matches no tool \(--strict\):\n {2}- "power-exchange\/cancelOrdr"/);
  });
});
