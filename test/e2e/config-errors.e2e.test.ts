// Config mistakes as a user meets them (exit 2, one precise line each), and a config
// file in another folder than the working directory, whose relative paths still work.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

describe('toolgate config files', () => {
  let dir: string;
  let project: string;
  let elsewhere: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-config-e2e-'));
    project = join(dir, 'project');
    elsewhere = join(dir, 'elsewhere');
    mkdirSync(project);
    mkdirSync(elsewhere);
    // A server file next to the config, named relatively: it runs the example exchange.
    writeFileSync(
      join(project, 'server.mjs'),
      `import ${JSON.stringify(pathToFileURL(POWER_EXCHANGE_SERVER).href)};\n`,
    );
    writeFileSync(
      join(project, 's.json'),
      JSON.stringify({ turns: [{ text: 'scripted answer from the project folder' }] }),
    );
    // The running Node, not whatever `node` is first on PATH: the example is TypeScript run directly.
    writeFileSync(
      join(project, 'toolgate.yaml'),
      `model: scripted:./s.json\nservers:\n  pe:\n    command: ` +
        `${JSON.stringify(process.execPath)}\n    args: [./server.mjs]\n`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a misspelt key in a server entry exits 2 naming the key and the key meant', async () => {
    const file = join(dir, 'typo.yaml');
    writeFileSync(file, 'servers:\n  pe:\n    comand: node\n    args: [server.js]\n');
    const { code, stdout, stderr } = await runCli(['tools', '--config', file], { cwd: elsewhere });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /typo\.yaml is not a valid toolgate config:/);
    assert.match(stderr, /^ {2}- servers\.pe\.comand: unknown key — did you mean "command"\?$/m);
  });

  it('a base URL without its scheme exits 2, from the file and from the flag', async () => {
    const file = join(dir, 'base-url.yaml');
    writeFileSync(file, 'providers:\n  openai:\n    baseUrl: localhost:11434/v1\n');
    const fromFile = await runCli(['run', 'hi', '--model', 'openai:x', '--config', file], { cwd: elsewhere });
    assert.equal(fromFile.code, 2, fromFile.stderr);
    assert.match(
      fromFile.stderr,
      /providers\.openai\.baseUrl: must start with http:\/\/ or https:\/\/, e.g\. http:\/\/localhost:11434\/v1/,
    );
    const fromFlag = await runCli(['run', 'hi', '--model', 'openai:x', '--base-url', 'api.example.com'], {
      cwd: elsewhere,
    });
    assert.equal(fromFlag.code, 2, fromFlag.stderr);
    assert.match(fromFlag.stderr, /--base-url must start with http:\/\/ or https:\/\//);
  });

  it(
    'a stdio server with a relative script runs from the ' + "config file's folder, whatever the working directory",
    async () => {
      const { code, stdout, stderr } = await runCli(['tools', '--config', join(project, 'toolgate.yaml')], {
        cwd: elsewhere,
      });
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^pe \(\d+ tools\)/m);
      assert.match(stdout, /getOrderBook/);
    },
  );

  it("a relative scripted model resolves against the config file's folder", async () => {
    const { code, stdout, stderr } = await runCli(['run', 'hi', '--config', join(project, 'toolgate.yaml')], {
      cwd: elsewhere,
    });
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'scripted answer from the project folder');
  });
});
