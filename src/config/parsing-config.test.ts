import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig, parseConfig } from './load-config.ts';
import { resolveSettings } from './resolve-settings.ts';

const root = mkdtempSync(join(tmpdir(), 'toolgate-parsing-config-'));
after(() => rmSync(root, { recursive: true, force: true }));
const deploy = join(root, 'deploy');
const elsewhere = join(root, 'elsewhere');
mkdirSync(deploy);
mkdirSync(elsewhere);

const YAML = `model: vllm:qwen3-8b
providers:
  vllm: { type: openai, baseUrl: http://gpu:8000/v1 }
  llamacpp: { type: openai, baseUrl: http://gpu:8080/v1 }
parsing:
  formats:
    - id: my-calls
      call: { begin: "<call>", end: "</call>" }
      name: { slot: field, nameKey: name, argumentsKey: arguments }
      arguments: { grammar: json }
  chatTemplates:
    "vllm:qwen*": ./templates/qwen3.jinja
    "llamacpp:*": server
    "openai:*": /opt/templates/x.jinja
`;

describe('parsing in the config', () => {
  it("template files resolve against the config file's folder; `server` and absolute paths stay as written", () => {
    const file = join(deploy, 'toolgate.yaml');
    writeFileSync(file, YAML);
    const { config } = loadConfig({ file, cwd: elsewhere, env: {} });
    assert.deepEqual(config.parsing?.chatTemplates, {
      'vllm:qwen*': join(deploy, 'templates', 'qwen3.jinja'),
      'llamacpp:*': 'server',
      'openai:*': '/opt/templates/x.jinja',
    });
    assert.equal((config.parsing?.formats?.[0] as { id?: string } | undefined)?.id, 'my-calls');
    const settings = resolveSettings(config, {}, {});
    assert.equal(settings.parsing?.chatTemplates?.['vllm:qwen*'], join(deploy, 'templates', 'qwen3.jinja'));
    assert.equal(settings.parsing?.formats?.length, 1);
  });

  it('--chat-template is written under the model in use: the most specific pattern, over the file', () => {
    const config = parseConfig({ model: 'openai:qwen', parsing: { chatTemplates: { 'openai:*': '/a.jinja' } } });
    const settings = resolveSettings(config, { chatTemplate: '/b.jinja' }, {});
    assert.deepEqual(settings.parsing?.chatTemplates, { 'openai:*': '/a.jinja', 'openai:qwen': '/b.jinja' });
    const byFlagModel = resolveSettings(config, { model: 'openai:other', chatTemplate: 'server' }, {});
    assert.equal(byFlagModel.parsing?.chatTemplates?.['openai:other'], 'server');
    assert.equal(resolveSettings({}, {}, {}).parsing, undefined, 'nothing configured, nothing set');
  });

  it('refuses what is not a parsing section, with the key path and the fix', () => {
    const problems = (raw: unknown): string => {
      try {
        parseConfig(raw, { source: 'toolgate.yaml' });
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      return '';
    };
    assert.match(problems({ parsing: { formats: 'hermes' } }), /parsing\.formats: must be a list of call formats/);
    assert.match(problems({ parsing: { formats: ['hermes'] } }), /parsing\.formats\.0: a call format is an object/);
    assert.match(
      problems({ parsing: { chatTemplates: { qwen3: './t.jinja' } } }),
      /parsing\.chatTemplates\.qwen3: .*provider:model/,
    );
    assert.match(
      problems({ parsing: { chatTemplates: { 'nope:*': './t.jinja' } } }),
      /parsing\.chatTemplates\.nope:\*: /,
    );
    assert.match(
      problems({ parsing: { chatTemplates: { 'openai:*': '' } } }),
      /parsing\.chatTemplates\.openai:\*: a chat template source is a file/,
    );
    assert.match(problems({ parsing: { templates: {} } }), /parsing\.templates: unknown key/);
  });
});
