import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { loadConfig, parseConfig } from './load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function configError(fn: () => unknown): ToolgateError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, 'config_invalid');
    return error;
  }
  assert.fail('expected a config error');
}

describe('loadConfig', () => {
  it('reads a full YAML config and resolves env: values', () => {
    const file = write(
      'full.yaml',
      `model: openai:gpt-4o-mini
providers:
  openai:
    baseUrl: http://localhost:11434/v1
    apiKey: env:MY_KEY
servers:
  power-exchange:
    command: node
    args: [examples/power-exchange/server.ts]
    env: { LOG: "env:LOG_LEVEL" }
  remote:
    url: http://127.0.0.1:3000/mcp
    headers: { Authorization: "Bearer env:NOT_A_REF" }
maxSteps: 7
`,
    );
    const { config, file: used } = loadConfig({ file, cwd: dir, env: { MY_KEY: 'sk-123', LOG_LEVEL: 'debug' } });
    assert.equal(used, file);
    assert.equal(config.model, 'openai:gpt-4o-mini');
    assert.equal(config.providers?.openai?.apiKey, 'sk-123');
    // A stdio server from a file runs in the file's folder.
    assert.deepEqual(config.servers?.['power-exchange'], {
      command: 'node',
      args: ['examples/power-exchange/server.ts'],
      env: { LOG: 'debug' },
      cwd: dir,
    });
    // Only a whole value "env:NAME" is a reference.
    assert.deepEqual(config.servers?.['remote'], {
      url: 'http://127.0.0.1:3000/mcp',
      headers: { Authorization: 'Bearer env:NOT_A_REF' },
    });
    assert.equal(config.maxSteps, 7);
  });

  it('accepts JSON and finds toolgate.yaml in the working directory', () => {
    const jsonFile = write('c.json', JSON.stringify({ model: 'scripted:./s.json' }));
    assert.equal(loadConfig({ file: jsonFile, cwd: dir, env: {} }).config.model, 'scripted:./s.json');
    const sub = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(sub, 'toolgate.yaml'), 'maxSteps: 3\n');
    assert.equal(loadConfig({ cwd: sub, env: {} }).config.maxSteps, 3);
    assert.deepEqual(loadConfig({ cwd: mkdtempSync(join(dir, 'empty-')), env: {} }).config, {});
  });

  it('names the bad key, the file and what is expected', () => {
    const unknown = configError(() =>
      loadConfig({ file: write('u.yaml', 'model: openai:x\nmaxStep: 3\n'), cwd: dir, env: {} }),
    );
    assert.match(unknown.message, /u\.yaml/);
    assert.match(unknown.message, /^ {2}- maxStep: unknown key — did you mean "maxSteps"\?$/m);
    const nested = configError(() =>
      loadConfig({ file: write('n.yaml', 'servers:\n  s:\n    command: node\n    argz: []\n'), cwd: dir, env: {} }),
    );
    assert.match(nested.message, /servers\.s\.argz: unknown key — did you mean "args"\?/);
    const badType = configError(() => parseConfig({ maxSteps: 'ten' }, { source: 'x.yaml' }));
    assert.match(badType.message, /maxSteps: .*number/);
    const badModel = configError(() => parseConfig({ model: 'gpt-4o' }));
    assert.match(badModel.message, /model: model must be "provider:model"/);
    const badServer = configError(() => parseConfig({ servers: { s: { args: ['x'] } } }));
    assert.match(badServer.message, /servers\.s: .*command.*url/s);
  });

  it('reports a missing environment variable with the key that uses it', () => {
    const error = configError(() =>
      parseConfig({ providers: { openai: { apiKey: 'env:NOPE_KEY' } } }, { source: 't.yaml', env: {} }),
    );
    assert.match(error.message, /providers\.openai\.apiKey refers to environment variable NOPE_KEY, which is not set/);
  });

  it('reports YAML syntax errors and a missing --config file', () => {
    assert.match(
      configError(() => loadConfig({ file: write('bad.yaml', 'model: [unclosed\n'), cwd: dir, env: {} })).message,
      /not valid YAML/,
    );
    assert.match(
      configError(() => loadConfig({ file: 'missing.yaml', cwd: dir, env: {} })).message,
      /missing\.yaml does not exist/,
    );
  });

  it('validates policy rules at load, naming the bad key', () => {
    const approval = configError(() =>
      parseConfig({ tools: { 'power-exchange/placeOrder': { approval: 'sometimes' } } }, { source: 'p.yaml' }),
    );
    assert.match(approval.message, /tools\.power-exchange\/placeOrder\.approval: /);
    const unknown = configError(() => parseConfig({ tools: { placeOrder: { aproval: 'never' } } }));
    assert.match(unknown.message, /tools\.placeOrder\.aproval: unknown key — did you mean "approval"\?/);
    const pattern = configError(() => parseConfig({ tenants: { acme: { deny: ['power exchange/*'] } } }));
    assert.match(pattern.message, /tenants\.acme\.deny\.0: a tool pattern is "server\/tool"/);
    const inject = configError(() => parseConfig({ tools: { x: { inject: { userId: '' } } } }));
    assert.match(inject.message, /tools\.x\.inject\.userId: an inject template must not be empty/);
    const key = configError(() => parseConfig({ tenants: { acme: { apiKeys: ['short'] } } }));
    assert.match(key.message, /tenants\.acme\.apiKeys\.0: .*at least 8 characters/);
  });
});
