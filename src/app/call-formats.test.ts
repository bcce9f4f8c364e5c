import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import {
  CallFormats,
  checkConfiguredFormats,
  type CallFormat,
  type LoadedTemplate,
  type TemplateAnalysis,
} from './call-formats.ts';

const MY_FORMAT = {
  id: 'my-calls',
  call: { begin: '<call>', end: '</call>' },
  name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
  arguments: { grammar: 'json' },
};

/** A template reader and analysis that record what they were asked, each template's format named after it. */
function fakeAnalysis(templates: Record<string, LoadedTemplate>): {
  analysis: () => Promise<TemplateAnalysis>;
  loads: { source: string; baseUrl?: string | undefined }[];
} {
  const loads: { source: string; baseUrl?: string | undefined }[] = [];
  const analysis: TemplateAnalysis = {
    load: async (source, options) => {
      loads.push({ source, baseUrl: options.baseUrl });
      return templates[source] ?? { ok: false, reason: 'no such file' };
    },
    derive: (template, options) =>
      template === 'unreadable'
        ? { ok: false, reason: 'the template renders no tool calls' }
        : {
            ok: true,
            format: {
              id: `template:${options?.id ?? ''}`,
              origin: 'template',
              call: { begin: `<${template}>`, end: `</${template}>` },
              name: { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' },
              arguments: { grammar: 'json' },
            },
            notes: [],
          },
    explain: (format) => `calls between ${format.call.begin} and ${format.call.end ?? ''}`,
  };
  return { analysis: () => Promise.resolve(analysis), loads };
}

describe('checkConfiguredFormats', () => {
  it('takes formats in the CallFormat shape, marked as from the config', () => {
    const [format] = checkConfiguredFormats([MY_FORMAT]);
    assert.equal(format?.id, 'my-calls');
    assert.equal(format?.origin, 'config');
  });

  it('refuses a broken format with config_invalid, one line per problem with its key path, naming the file', () => {
    const broken = { ...MY_FORMAT, id: '', arguments: { grammar: 'yaml' } };
    assert.throws(
      () => checkConfiguredFormats([MY_FORMAT, broken], '/srv/toolgate.yaml'),
      (error: unknown) => {
        assert.ok(error instanceof ToolgateError);
        assert.equal(error.code, 'config_invalid');
        assert.match(error.message, /^\/srv\/toolgate\.yaml is not a valid toolgate config:/);
        assert.match(error.message, /\n {2}- parsing\.formats\.1\.id: /);
        assert.match(error.message, /\n {2}- parsing\.formats\.1\.arguments/);
        assert.doesNotMatch(error.message, /parsing\.formats\.0/);
        return true;
      },
    );
  });
});

describe('CallFormats', () => {
  const baseUrls: Record<string, string> = { llamacpp: 'http://gpu:8080/v1' };
  const options = (
    parsing: ConstructorParameters<typeof CallFormats>[0]['parsing'],
    analysis: () => Promise<TemplateAnalysis>,
    warnings: string[] = [],
  ) => ({
    parsing,
    cwd: '/work',
    baseUrlOf: (model: string) => baseUrls[model.slice(0, model.indexOf(':'))],
    warn: (message: string) => warnings.push(message),
    analysis,
  });

  it(
    'gives a model the configured formats, then the ' + 'one derived from the most specific matching template',
    async () => {
      const fake = fakeAnalysis({
        '/t/qwen.jinja': { ok: true, template: 'qwen', origin: 'qwen.jinja' },
        '/t/any.jinja': { ok: true, template: 'any', origin: 'any.jinja' },
      });
      const formats = new CallFormats(
        options(
          { formats: [MY_FORMAT], chatTemplates: { 'vllm:*': '/t/any.jinja', 'vllm:qwen*': '/t/qwen.jinja' } },
          fake.analysis,
        ),
      );
      const ids = (list: readonly CallFormat[]) => list.map((f) => f.id);
      assert.deepEqual(ids(await formats.forModel('vllm:qwen3-8b')), ['my-calls', 'template:qwen.jinja']);
      assert.deepEqual(ids(await formats.forModel('vllm:llama')), ['my-calls', 'template:any.jinja']);
      assert.deepEqual(ids(await formats.forModel('openai:gpt-4o')), ['my-calls'], 'no template for this model');
    },
  );

  it('reads and analyses each template once, however many runs and models use it', async () => {
    const fake = fakeAnalysis({ '/t/qwen.jinja': { ok: true, template: 'qwen', origin: 'qwen.jinja' } });
    const formats = new CallFormats(options({ chatTemplates: { 'vllm:*': '/t/qwen.jinja' } }, fake.analysis));
    await Promise.all([formats.forModel('vllm:a'), formats.forModel('vllm:b'), formats.forModel('vllm:a')]);
    assert.equal(fake.loads.length, 1);
  });

  it("`server` asks the base URL of the model's provider, once per server", async () => {
    const fake = fakeAnalysis({ server: { ok: true, template: 'srv', origin: 'http://gpu:8080/props' } });
    const formats = new CallFormats(options({ chatTemplates: { 'llamacpp:*': 'server' } }, fake.analysis));
    const [format] = await formats.forModel('llamacpp:qwen');
    assert.equal(format?.call.begin, '<srv>');
    await formats.forModel('llamacpp:other');
    assert.deepEqual(fake.loads, [{ source: 'server', baseUrl: 'http://gpu:8080/v1' }]);
  });

  it(
    'a template that cannot be read or analysed is warned ' +
      'about once, saying why, and the built-in formats are used',
    async () => {
      const warnings: string[] = [];
      const fake = fakeAnalysis({ '/t/bad.jinja': { ok: true, template: 'unreadable', origin: 'bad.jinja' } });
      const formats = new CallFormats(
        options(
          { chatTemplates: { 'vllm:bad*': '/t/bad.jinja', 'vllm:gone*': '/t/gone.jinja' } },
          fake.analysis,
          warnings,
        ),
      );
      assert.deepEqual(await formats.forModel('vllm:bad-1'), []);
      assert.deepEqual(await formats.forModel('vllm:bad-2'), []);
      assert.deepEqual(await formats.forModel('vllm:gone'), []);
      assert.equal(warnings.length, 2, warnings.join('\n'));
      assert.match(
        warnings[0] ?? '',
        /vllm:bad-1 from bad\.jinja could not be analysed: the template renders no tool calls; .*built-in formats only/,
      );
      assert.match(warnings[1] ?? '', /could not be read from \/t\/gone\.jinja: no such file/);
    },
  );

  it('a reader that throws (a broken install) is a warning too, never a failed run', async () => {
    const warnings: string[] = [];
    const formats = new CallFormats(
      options(
        { chatTemplates: { '*': '/t/x.jinja' } },
        () => Promise.reject(new Error('cannot load the renderer')),
        warnings,
      ),
    );
    assert.deepEqual(await formats.forModel('openai:x'), []);
    assert.match(warnings[0] ?? '', /cannot load the renderer/);
  });
});
