import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig, parseConfig } from './load-config.ts';
import { resolveSettings } from './resolve-settings.ts';

// The config lives in <root>/deploy; the working directory is <root>/elsewhere.
const root = mkdtempSync(join(tmpdir(), 'toolgate-config-paths-'));
after(() => rmSync(root, { recursive: true, force: true }));
const deploy = join(root, 'deploy');
const elsewhere = join(root, 'elsewhere');
mkdirSync(deploy);
mkdirSync(elsewhere);

const YAML = `model: scripted:./s.json
models: [scripted:./s.json, "scripted:../shared/t.json", openai:gpt-4o*]
tenants:
  acme: { models: [scripted:./s.json] }
servers:
  pe: { command: node, args: [./server.mjs] }
  local: { command: ./bin/server.sh, cwd: ./servers }
  abs: { command: node, cwd: ${JSON.stringify(elsewhere)} }
  remote: { url: http://127.0.0.1:3000/mcp }
server:
  store: sqlite:./data/x.db
`;
const file = join(deploy, 'toolgate.yaml');
writeFileSync(file, YAML);

describe('relative paths in a config file', () => {
  it("resolve against the file's folder, not the working directory", () => {
    const { config } = loadConfig({ file, cwd: elsewhere, env: {} });
    assert.equal(config.model, `scripted:${join(deploy, 's.json')}`);
    // ../shared/t.json names the same file from both folders, so the id stays as written.
    assert.deepEqual(config.models, [
      `scripted:${join(deploy, 's.json')}`,
      'scripted:../shared/t.json',
      'openai:gpt-4o*',
    ]);
    assert.deepEqual(config.tenants?.['acme']?.models, [`scripted:${join(deploy, 's.json')}`]);
    assert.equal(config.server?.store, `sqlite:${join(deploy, 'data', 'x.db')}`);
    // Stdio servers run in the file's folder, so `args: [./server.mjs]` is the file next to the config.
    assert.deepEqual(config.servers?.['pe'], { command: 'node', args: ['./server.mjs'], cwd: deploy });
    // A path-like command resolves where the server runs; its own cwd resolves against the file's folder.
    assert.deepEqual(config.servers?.['local'], {
      command: join(deploy, 'servers', 'bin', 'server.sh'),
      cwd: join(deploy, 'servers'),
    });
    assert.deepEqual(config.servers?.['abs'], { command: 'node', cwd: elsewhere });
    assert.deepEqual(config.servers?.['remote'], { url: 'http://127.0.0.1:3000/mcp' });
  });

  it('keep scripted model ids as written when the file is in the working directory', () => {
    const { config } = loadConfig({ file, cwd: deploy, env: {} });
    assert.equal(config.model, 'scripted:./s.json');
    assert.deepEqual(config.models, ['scripted:./s.json', 'scripted:../shared/t.json', 'openai:gpt-4o*']);
    // Paths that no client names are absolute either way.
    assert.equal(config.server?.store, `sqlite:${join(deploy, 'data', 'x.db')}`);
    assert.equal(
      config.servers?.['pe'] !== undefined && 'cwd' in config.servers['pe'] ? config.servers['pe'].cwd : undefined,
      deploy,
    );
  });

  it('keep absolute paths and sqlite :memory: unchanged', () => {
    const abs = join(root, 'abs.yaml');
    writeFileSync(abs, `model: scripted:${join(root, 'a.json')}\nserver: { store: "sqlite::memory:" }\n`);
    const { config } = loadConfig({ file: abs, cwd: elsewhere, env: {} });
    assert.equal(config.model, `scripted:${join(root, 'a.json')}`);
    assert.equal(config.server?.store, 'sqlite::memory:');
  });

  it('are left alone by parseConfig, which has no file', () => {
    const config = parseConfig(
      {
        model: 'scripted:./s.json',
        servers: { pe: { command: './x', args: ['./y'] } },
        server: { store: 'sqlite:./d.db' },
      },
      { env: {} },
    );
    assert.deepEqual(config, {
      model: 'scripted:./s.json',
      servers: { pe: { command: './x', args: ['./y'] } },
      server: { store: 'sqlite:./d.db' },
    });
  });

  it('flags keep resolving against the working directory', () => {
    const { config } = loadConfig({ file, cwd: elsewhere, env: {} });
    const settings = resolveSettings(
      config,
      { model: 'scripted:./flag.json', mcp: ['flagged=node ./flag-server.mjs'] },
      {},
    );
    assert.equal(settings.model, 'scripted:./flag.json');
    assert.deepEqual(settings.servers['flagged'], { command: 'node', args: ['./flag-server.mjs'] });
    assert.equal(
      settings.servers['pe'] !== undefined && 'cwd' in settings.servers['pe'] ? settings.servers['pe'].cwd : undefined,
      deploy,
    );
  });
});
