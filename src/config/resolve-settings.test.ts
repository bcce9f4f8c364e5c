import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createModel } from '../app/create-model.ts';
import { ToolgateError } from '../core/index.ts';
import { parseMcpFlag, resolveSettings } from './resolve-settings.ts';
import { splitCommandLine } from './split-command-line.ts';

describe('resolveSettings', () => {
  it('flags beat TOOLGATE_* env, which beats the file, which beats defaults', () => {
    const file = { model: 'openai:file-model', maxSteps: 5 };
    assert.equal(resolveSettings({}, {}, {}).maxSteps, 20);
    assert.equal(resolveSettings(file, {}, {}).model, 'openai:file-model');
    assert.equal(resolveSettings(file, {}, { TOOLGATE_MODEL: 'openai:env-model' }).model, 'openai:env-model');
    assert.equal(
      resolveSettings(file, { model: 'openai:flag-model' }, { TOOLGATE_MODEL: 'openai:env-model' }).model,
      'openai:flag-model',
    );
    assert.equal(resolveSettings(file, {}, { TOOLGATE_MAX_STEPS: '9' }).maxSteps, 9);
    assert.equal(resolveSettings(file, { maxSteps: 2 }, { TOOLGATE_MAX_STEPS: '9' }).maxSteps, 2);
  });

  it('OPENAI_* environment variables are the fallback for provider settings', () => {
    const env = { OPENAI_BASE_URL: 'http://env/v1', OPENAI_API_KEY: 'env-key' };
    assert.deepEqual(resolveSettings({}, {}, env).providers['openai'], {
      type: 'openai',
      baseUrl: 'http://env/v1',
      apiKey: 'env-key',
    });
    const file = { providers: { openai: { baseUrl: 'http://file/v1' } } };
    assert.deepEqual(resolveSettings(file, {}, env).providers['openai'], {
      type: 'openai',
      baseUrl: 'http://file/v1',
      apiKey: 'env-key',
    });
    assert.deepEqual(
      resolveSettings(file, { baseUrl: 'http://flag/v1', apiKey: 'flag-key' }, env).providers['openai'],
      {
        type: 'openai',
        baseUrl: 'http://flag/v1',
        apiKey: 'flag-key',
      },
    );
  });

  it('every built-in provider reads its own variables; named endpoints read none', () => {
    const env = {
      ANTHROPIC_API_KEY: 'ak',
      ANTHROPIC_BASE_URL: 'http://anthropic.test',
      OLLAMA_HOST: 'gpu-box:11434',
      OPENAI_API_KEY: 'ok',
    };
    const providers = resolveSettings(
      { providers: { vllm: { type: 'openai', baseUrl: 'http://vllm:8000/v1' } } },
      {},
      env,
    ).providers;
    assert.deepEqual(providers['anthropic'], { type: 'anthropic', baseUrl: 'http://anthropic.test', apiKey: 'ak' });
    assert.deepEqual(providers['ollama'], { type: 'ollama', host: 'gpu-box:11434' });
    assert.deepEqual(providers['vllm'], { type: 'openai', baseUrl: 'http://vllm:8000/v1' });
    const fromFile = resolveSettings({ providers: { anthropic: { apiKey: 'file-key' } } }, {}, env).providers[
      'anthropic'
    ];
    assert.equal(fromFile?.apiKey, 'file-key');
  });

  it('--base-url and --api-key speak to the provider of the model in use', () => {
    const config = { providers: { vllm: { type: 'openai' as const, baseUrl: 'http://vllm:8000/v1' } } };
    const flags = { baseUrl: 'http://other:8000/v1', apiKey: 'flag-key' };
    const named = resolveSettings({ ...config, model: 'vllm:qwen' }, flags, {}).providers;
    assert.equal(named['vllm']?.type === 'openai' ? named['vllm'].baseUrl : undefined, 'http://other:8000/v1');
    assert.equal(named['vllm']?.apiKey, 'flag-key');
    assert.equal(named['openai']?.apiKey, undefined);
    const ollama = resolveSettings({}, { model: 'ollama:qwen2.5:7b', baseUrl: 'http://gpu-box:11434' }, {}).providers[
      'ollama'
    ];
    assert.equal(ollama?.type === 'ollama' ? ollama.host : undefined, 'http://gpu-box:11434');
    const anthropic = resolveSettings(
      {},
      { model: 'anthropic:claude-sonnet-4-5', apiKey: 'sk-ant' },
      { ANTHROPIC_API_KEY: 'env' },
    ).providers['anthropic'];
    assert.equal(anthropic?.apiKey, 'sk-ant');
    // A scripted model has no endpoint: the flags keep their old meaning (openai).
    assert.equal(resolveSettings({}, { model: 'scripted:./s.json', apiKey: 'k' }, {}).providers['openai']?.apiKey, 'k');
  });

  it(
    'refuses a base URL without http(s):// from the flag as a usage error ' +
      'naming the source; a bad variable fails when its provider is used',
    async () => {
      const usage = (pattern: RegExp) => (e: unknown) =>
        e instanceof ToolgateError && e.code === 'usage' && pattern.test(e.message);
      const fix = 'must start with http:// or https://, e.g. http://localhost:11434/v1';
      for (const bad of ['localhost:11434/v1', 'api.example.com']) {
        assert.throws(() => resolveSettings({}, { baseUrl: bad }, {}), usage(new RegExp(`^--base-url ${fix}$`)));
        const providers = resolveSettings({}, {}, { OPENAI_BASE_URL: bad }).providers;
        await assert.rejects(
          createModel({ model: 'openai:m', providers }),
          usage(new RegExp(`${fix} \\(it comes from providers\\.openai\\.baseUrl, --base-url, or OPENAI_BASE_URL\\)$`)),
        );
        // Another provider's model is not held up by it.
        await createModel({ model: 'ollama:m', providers });
      }
      assert.throws(() => resolveSettings({}, { baseUrl: 'http://' }, {}), usage(/^--base-url is not a valid URL/));
      assert.throws(
        () => resolveSettings({}, { model: 'ollama:m', baseUrl: 'ftp://box' }, {}),
        usage(/^--base-url must use http:\/\/ or https:\/\//),
      );
    },
  );

  it('accepts http(s) base URLs, and ignores a bad OPENAI_BASE_URL that a flag or the file overrides', () => {
    const openai = (settings: ReturnType<typeof resolveSettings>): string | undefined => {
      const entry = settings.providers['openai'];
      return entry?.type === 'openai' ? entry.baseUrl : undefined;
    };
    assert.equal(
      openai(resolveSettings({}, { baseUrl: 'https://api.example.com/v1' }, {})),
      'https://api.example.com/v1',
    );
    assert.equal(
      openai(resolveSettings({}, {}, { OPENAI_BASE_URL: 'http://localhost:11434/v1' })),
      'http://localhost:11434/v1',
    );
    const stale = { OPENAI_BASE_URL: 'localhost:11434/v1' };
    assert.equal(openai(resolveSettings({}, { baseUrl: 'http://flag/v1' }, stale)), 'http://flag/v1');
    assert.equal(
      openai(resolveSettings({ providers: { openai: { baseUrl: 'http://file/v1' } } }, {}, stale)),
      'http://file/v1',
    );
  });

  it('adds --mcp servers next to the configured ones, never replacing one', () => {
    const s = resolveSettings(
      { servers: { 'power-exchange': { command: 'x' } } },
      { mcp: ['node examples/power-exchange/server.ts', 'http://127.0.0.1:9000/mcp'] },
      {},
    );
    assert.deepEqual(Object.keys(s.servers), ['power-exchange', 'power-exchange-2', '127.0.0.1-9000']);
    assert.deepEqual(s.servers['power-exchange-2'], { command: 'node', args: ['examples/power-exchange/server.ts'] });
  });

  it('rejects a model without a provider and a bad TOOLGATE_MAX_STEPS', () => {
    assert.throws(
      () => resolveSettings({}, { model: 'gpt-4o' }, {}),
      (e: unknown) => e instanceof ToolgateError && e.code === 'usage' && /provider:model/.test(e.message),
    );
    assert.throws(
      () => resolveSettings({}, {}, { TOOLGATE_MAX_STEPS: 'x' }),
      /TOOLGATE_MAX_STEPS must be a positive integer/,
    );
  });
});

describe('parseMcpFlag', () => {
  it('derives readable names from commands, packages and URLs', () => {
    assert.equal(parseMcpFlag('npx -y @modelcontextprotocol/server-everything').name, 'server-everything');
    assert.equal(parseMcpFlag('node ./dist/index.js').name, 'dist');
    assert.equal(parseMcpFlag('uvx mcp-server-time').name, 'mcp-server-time');
    assert.equal(parseMcpFlag('https://mcp.example.com/mcp').name, 'mcp.example.com-443');
    assert.deepEqual(parseMcpFlag('pe=node server.ts --state "my file.json"'), {
      name: 'pe',
      server: { command: 'node', args: ['server.ts', '--state', 'my file.json'] },
    });
    assert.deepEqual(parseMcpFlag('remote=http://h:1/mcp'), { name: 'remote', server: { url: 'http://h:1/mcp' } });
    assert.throws(() => parseMcpFlag('  '), /--mcp needs a command line/);
  });
});

describe('splitCommandLine', () => {
  it('splits like a shell without expanding anything', () => {
    assert.deepEqual(splitCommandLine(`node "a b.js" 'c d' e\\ f "q\\"x" $HOME`), [
      'node',
      'a b.js',
      'c d',
      'e f',
      'q"x',
      '$HOME',
    ]);
    assert.deepEqual(splitCommandLine('  a   b  '), ['a', 'b']);
    assert.deepEqual(splitCommandLine(`x ''`), ['x', '']);
    assert.throws(() => splitCommandLine('node "unterminated'), /unbalanced double quote/);
  });
});
