import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { loadConfig, parseConfig } from './load-config.ts';
import { configProblems } from '../../test/support/config-problems.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-config-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The "  - …" problem lines of a config error (the header and the docs pointer are checked once, below). */
function problems(raw: unknown): string[] {
  const found = configProblems(raw);
  if (found.length === 0) assert.fail('expected a config error');
  return found;
}

describe('config errors inside a server entry', () => {
  it('a misspelt key is named with its path and the key meant', () => {
    assert.deepEqual(problems({ servers: { pe: { comand: 'node', args: ['server.js'] } } }), [
      'servers.pe.comand: unknown key — did you mean "command"?',
    ]);
  });

  it('args given as one string says it must be a list and shows one', () => {
    const [line] = problems({ servers: { pe: { command: 'node', args: 'server.js --port 3000' } } });
    assert.equal(line, 'servers.pe.args: must be a list of strings, e.g. args: ["server.js", "--port", "3000"]');
  });

  it('names an entry with both command and url, or neither', () => {
    assert.deepEqual(problems({ servers: { pe: { command: 'node', url: 'http://127.0.0.1:3000/mcp' } } }), [
      'servers.pe: has both `command` (a stdio server) and `url` (an HTTP server); keep one of them',
    ]);
    const [neither] = problems({ servers: { pe: { args: ['server.js'] } } });
    assert.match(neither ?? '', /^servers\.pe: a server needs either `command` .* or `url` /);
  });

  it('reports problems from the branch the entry chose', () => {
    assert.deepEqual(problems({ servers: { pe: { command: 'node', headers: { a: 'b' }, env: { PORT: 3000 } } } }), [
      'servers.pe.env.PORT: must be a string; quote numbers and true/false, e.g. "3000"',
      'servers.pe.headers: belongs to HTTP servers (url); a stdio server ' +
        '(command) takes command, args, env, inheritEnv, cwd, timeoutMs',
    ]);
    assert.deepEqual(problems({ servers: { remote: { url: '127.0.0.1:3000/mcp' } } }), [
      'servers.remote.url: must be an http(s) URL, e.g. url: http://127.0.0.1:3000/mcp',
    ]);
  });
});

describe('unknown keys anywhere', () => {
  it('suggest the closest key, at the top level without a path', () => {
    assert.deepEqual(problems({ modle: 'openai:x' }), ['modle: unknown key — did you mean "model"?']);
  });

  it('suggest the closest key in nested objects, records and lists', () => {
    assert.deepEqual(problems({ server: { prot: 8787 } }), ['server.prot: unknown key — did you mean "port"?']);
    assert.deepEqual(problems({ providers: { openai: { baseURL: 'http://localhost:11434/v1' } } }), [
      'providers.openai.baseURL: unknown key — did you mean "baseUrl"?',
    ]);
    assert.deepEqual(problems({ tools: { 'x/y': { aproval: 'never' } } }), [
      'tools.x/y.aproval: unknown key — did you mean "approval"?',
    ]);
    assert.deepEqual(
      problems({ tenants: { acme: { alow: ['x/*'], apiKeys: [{ key: 'key-12345678', usrId: 'u' }] } } }),
      [
        'tenants.acme.apiKeys.0.usrId: unknown key — did you mean "userId"?',
        'tenants.acme.alow: unknown key — did you mean "allow"?',
      ],
    );
  });

  it('list the known keys when none is close, one line per key', () => {
    assert.deepEqual(problems({ server: { zzzzqq: 1, port: 1, xqxqxq: 2 } }), [
      'server.zzzzqq: unknown key; known keys: port, host, store, sqliteSynchronous, sqliteBusyTimeoutMs, ' +
        ('poolSize, concurrency, queueLimit, queueLimitPerTenant, leaseMs, heartbeatMs, sseBufferLimitBytes, ' +
          ('maxBodyBytes, sseIdleTimeoutMs, sseHistoryTimeoutMs, ssePollMs, shutdownGraceMs, toolStartTimeoutMs, ' +
            ('toolRetryMaxDelayMs, metricsPort, metricsHost, cors, ' +
              'sessionSecret, sessionTtlSeconds, trustedProxies, authBackoff'))),
      'server.xqxqxq: unknown key; known keys: port, host, store, sqliteSynchronous, sqliteBusyTimeoutMs, ' +
        ('poolSize, concurrency, queueLimit, queueLimitPerTenant, leaseMs, heartbeatMs, sseBufferLimitBytes, ' +
          ('maxBodyBytes, sseIdleTimeoutMs, sseHistoryTimeoutMs, ssePollMs, shutdownGraceMs, toolStartTimeoutMs, ' +
            ('toolRetryMaxDelayMs, metricsPort, metricsHost, cors, ' +
              'sessionSecret, sessionTtlSeconds, trustedProxies, authBackoff'))),
    ]);
  });

  it('keeps the header naming the file and points to the docs', () => {
    const file = join(dir, 'typo.yaml');
    writeFileSync(file, 'modle: openai:x\n');
    assert.throws(
      () => loadConfig({ file, cwd: dir, env: {} }),
      (error: unknown) => {
        assert.ok(error instanceof ToolgateError);
        assert.equal(error.code, 'config_invalid');
        assert.equal(error.message.split('\n')[0], `${file} is not a valid toolgate config:`);
        assert.equal(error.message.split('\n')[1], '  - modle: unknown key — did you mean "model"?');
        assert.match(error.message, /docs\/configuration\.md/);
        return true;
      },
    );
  });
});

describe('providers.openai.baseUrl in the file', () => {
  it('must be an absolute http(s) URL', () => {
    for (const baseUrl of ['localhost:11434/v1', 'api.example.com']) {
      assert.deepEqual(problems({ providers: { openai: { baseUrl } } }), [
        'providers.openai.baseUrl: must start with http:// or https://, e.g. http://localhost:11434/v1',
      ]);
    }
    assert.deepEqual(problems({ providers: { openai: { baseUrl: 'http://' } } }), [
      'providers.openai.baseUrl: is not a valid URL, e.g. http://localhost:11434/v1',
    ]);
  });

  it('accepts http and https URLs', () => {
    for (const baseUrl of ['http://localhost:11434/v1', 'https://api.example.com/v1', 'HTTPS://openrouter.ai/api/v1']) {
      assert.equal(
        parseConfig({ providers: { openai: { baseUrl } } }, { env: {} }).providers?.openai?.baseUrl,
        baseUrl,
      );
    }
  });
});

describe('providers: built-in names, named endpoints and the models that use them', () => {
  it('a named endpoint needs a type, and the type decides which keys it takes', () => {
    assert.deepEqual(problems({ providers: { vllm: { baseUrl: 'http://vllm:8000/v1' } } }), [
      'providers.vllm.type: "vllm" is not a built-in provider, so it needs a type: openai, ' +
        'anthropic or ollama (got none), e.g. vllm: {type: openai, baseUrl: http://localhost:8000/v1}',
    ]);
    assert.match(
      problems({ providers: { vllm: { type: 'opnai', baseUrl: 'http://vllm:8000/v1' } } })[0] ?? '',
      /got "opnai" — did you mean "openai"\?/,
    );
    assert.deepEqual(problems({ providers: { box: { type: 'ollama', baseUrl: 'http://box:11434' } } }), [
      'providers.box.baseUrl: unknown key; known keys: type, host, think, keepAlive, options, apiKey, ' +
        ('headers, timeoutMs, maxRetries, maxResponseBytes, maxStreamBytes, ' +
          'maxEventBytes, maxToolCalls, extraBody (for a provider of type ollama)'),
    ]);
    assert.deepEqual(problems({ providers: { anthropic: { apikey: 'x' } } }), [
      'providers.anthropic.apikey: unknown key — did you mean "apiKey"?',
    ]);
  });

  it('a built-in name is its own type; scripted takes no settings; values are checked by type', () => {
    assert.match(
      problems({ providers: { openai: { type: 'ollama' } } })[0] ?? '',
      /^providers\.openai\.type: providers\.openai is always type openai; give a ollama endpoint a name of its own/,
    );
    assert.match(
      problems({ providers: { scripted: {} } })[0] ?? '',
      /^scripted|^providers\.scripted: scripted is built in/,
    );
    assert.deepEqual(problems({ providers: { anthropic: { thinking: { budgetTokens: 100 } } } }), [
      'providers.anthropic.thinking.budgetTokens: Anthropic needs a thinking budget of at least 1024 tokens',
    ]);
    assert.match(
      problems({ providers: { ollama: { host: 'ftp://box' } } })[0] ?? '',
      /^providers\.ollama\.host: must use http:\/\/ or https:\/\/ \(got ftp:\/\/\)/,
    );
    assert.match(
      problems({ providers: { Bad_Name: { type: 'openai' } } })[0] ?? '',
      /a provider name is lower-case letters/,
    );
  });

  it('model, models, tenant models and prices must name a provider that exists', () => {
    const config = {
      providers: { vllm: { type: 'openai', baseUrl: 'http://vllm:8000/v1' } },
      model: 'vlm:qwen',
      models: ['anthropic:claude-*', 'olama:*'],
      tenants: { acme: { models: ['vllm:*', 'deepsek:*'] } },
      prices: { 'antropic:*': { inputPerMTok: 3, outputPerMTok: 15 } },
    };
    const lines = problems(config);
    assert.equal(lines.length, 4);
    assert.match(
      lines[0] ?? '',
      new RegExp(
        String.raw`^model: unknown provider "vlm" in "vlm:qwen" — did you mean "vll` +
          String.raw`m"\?; known providers: openai, anthropic, ollama, scripted, vllm`,
      ),
    );
    assert.match(lines[1] ?? '', /^models\.1: unknown provider "olama" in "olama:\*" — did you mean "ollama"\?/);
    assert.match(lines[2] ?? '', /^tenants\.acme\.models\.1: unknown provider "deepsek"/);
    assert.match(lines[3] ?? '', /^prices\.antropic:\*: unknown provider "antropic"/);
  });

  it('accepts every provider type, with and without the optional type on built-in names', () => {
    const config = parseConfig(
      {
        model: 'anthropic:claude-sonnet-4-5',
        models: ['openai:*', 'ollama:qwen2.5:*', 'vllm:*', 'gpu:*'],
        providers: {
          openai: { baseUrl: 'http://localhost:11434/v1' },
          anthropic: { type: 'anthropic', apiKey: 'sk-ant', maxTokens: 2048, thinking: { budgetTokens: 1024 } },
          ollama: { host: '127.0.0.1:11434', think: 'low', keepAlive: '5m', options: { num_ctx: 8192 } },
          vllm: {
            type: 'openai',
            baseUrl: 'http://vllm:8000/v1',
            extraBody: { chat_template_kwargs: { enable_thinking: false } },
          },
          gpu: { type: 'ollama', host: 'gpu-box' },
        },
      },
      { env: {} },
    );
    assert.equal(config.providers?.['gpu']?.type, 'ollama');
    assert.equal(config.providers?.anthropic?.maxTokens, 2048);
  });
});

describe('config errors in map keys', () => {
  it('a key that is not a model pattern, tool pattern or tenant id says the rule, not "Invalid key in record"', () => {
    assert.deepEqual(
      problems({
        prices: { 'gpt-4o*': { inputPerMTok: 1, outputPerMTok: 2 } },
        tools: { 'power exchange/x': { approval: 'never' } },
        tenants: { 'acme corp': {} },
      }),
      [
        'prices.gpt-4o*: not a valid key here: a model pattern is ' +
          '"provider:model", optionally with * (e.g. openai:gpt-4o-mini, openai:*)',
        'tools.power exchange/x: not a valid key here: a tool pattern is ' +
          '"server/tool", a bare tool name, or a glob like "power-exchange/*"',
        'tenants.acme corp: not a valid key here: tenant ids may use letters, digits, "_", "-", "."',
      ],
    );
  });

  it('prices take every model pattern models takes', () => {
    const patterns = [
      'openai:gpt-4o-mini',
      'openai:gpt-4o*',
      'openai:*',
      'anthropic:claude-*',
      'ollama:qwen2.5:*',
      'vllm:*',
      'openai:Qwen/Qwen2.5-7B-Instruct',
      'scripted:./demo.json',
    ];
    const config = parseConfig(
      {
        providers: { vllm: { type: 'openai', baseUrl: 'http://vllm:8000/v1' } },
        models: patterns,
        prices: Object.fromEntries(patterns.map((p) => [p, { inputPerMTok: 1, outputPerMTok: 2 }])),
      },
      { env: {} },
    );
    assert.deepEqual(Object.keys(config.prices ?? {}), patterns);
  });
});
