// Importing the library loads neither the HTTP server nor zod: the server's
// routes and schemas, and the config schema, are loaded the first time they are
// used (src/app/lazy-http-server.ts, src/config/load-config.ts). Each case runs
// in a fresh process that records every module it loads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const ENTRY = pathToFileURL('src/index.ts').href;

/**
 * Runs `body` (an async module body with `lib` imported) in a fresh process; returns what it printed and the modules it
 * loaded.
 */
function probe(body: string): { out: unknown; loaded: string[] } {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    const lib = await import(${JSON.stringify(ENTRY)});
    const afterImport = [...loaded];
    const out = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify({ afterImport, loaded, out }));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { afterImport: string[]; loaded: string[]; out: unknown };
  return { out: { ...(parsed.out as object), afterImport: parsed.afterImport }, loaded: parsed.loaded };
}

const isZod = (url: string): boolean => /\/node_modules\/zod\//.test(url);
const isServer = (url: string): boolean => /\/src\/server\//.test(url);
const isTokenizer = (url: string): boolean => /\/node_modules\/gpt-tokenizer\//.test(url);

test('importing the library loads no HTTP server module and no zod', () => {
  const { out } = probe('return {};');
  const afterImport = (out as { afterImport: string[] }).afterImport;
  assert.ok(
    afterImport.some((u) => u.includes('/src/orchestrator/')),
    'the probe records the library modules it loads',
  );
  assert.deepEqual(afterImport.filter(isServer), []);
  assert.deepEqual(afterImport.filter(isZod), []);
  assert.deepEqual(afterImport.filter(isTokenizer), []);
  // The GGUF reader (about 9 MB) is loaded when a .gguf chat template is read, not with the library.
  assert.deepEqual(
    afterImport.filter((u) => /\/node_modules\/@huggingface\/(gguf|tasks)\//.test(u)),
    [],
  );
});

test('the tokenizer that estimates usage loads at the first answer without usage, never for answers with it', () => {
  const { out, loaded } = probe(
    `
    const request = { messages: [{ role: 'user', content: 'hello world' }], tools: [], stream: false };
    const answer = (usage) => ({ id: 'local:m', generate: async () => ({ text: 'hi', ` +
      (`toolCalls: [], finishReason: 'stop', ...(usage === undefined ? {} : { usage }) }) });
    const reported = await lib.withEstimatedUsage(answer({ promptTokens: ` +
        `9, completionTokens: 1, totalTokens: 10 })).generate(request);
    const tokenizerAfterReported = loaded.some((u) => u.includes('/node_modules/gpt-tokenizer/'));
    const estimated = await lib.withEstimatedUsage(answer(undefined)).generate(request);
    return { reported: reported.usage, tokenizerAfterReported, estimated: estimated.usage };
  `),
  );
  const result = out as { reported: unknown; tokenizerAfterReported: boolean; estimated: unknown };
  assert.deepEqual(result.reported, { promptTokens: 9, completionTokens: 1, totalTokens: 10 });
  assert.equal(result.tokenizerAfterReported, false);
  // "hello world" is 2 tokens, its message 3 more, the reply's priming 3; "hi" is 1.
  assert.deepEqual(result.estimated, { promptTokens: 8, completionTokens: 1, totalTokens: 9, estimated: true });
  assert.ok(loaded.some(isTokenizer), 'the tokenizer was loaded for the answer without usage');
});

test('createHttpHandler from the library entry loads the server on first use and serves', () => {
  const { out, loaded } = probe(
    `
    const store = new lib.MemoryRunStore();
    const handler = lib.createHttpHandler({ service: { async ` +
      `start() { throw new Error('unused'); } }, store, apiKeys: [] });
    const { createServer } = await import('node:http');
    const server = createServer(handler);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch('http://127.0.0.1:' + server.address().port + '/healthz');
    const body = await response.json();
    server.close();
    return { type: typeof handler, status: response.status, body };
  `,
  );
  const result = out as { type: string; status: number; body: unknown };
  assert.equal(result.type, 'function');
  assert.equal(result.status, 200);
  assert.ok(loaded.some(isServer), 'the server was loaded when it was first used');
});

test('parseConfig from the library entry loads the config schema on first use and still reports every problem', () => {
  const { out, loaded } = probe(`
    try {
      lib.parseConfig({ model: 42, unknownKey: true }, { source: 'toolgate.yaml', env: {} });
      return { threw: false };
    } catch (error) {
      return { threw: true, code: error.code, message: error.message };
    }
  `);
  const result = out as { threw: boolean; code?: string; message?: string };
  assert.equal(result.threw, true);
  assert.equal(result.code, 'config_invalid');
  assert.match(result.message ?? '', /toolgate\.yaml/);
  assert.match(result.message ?? '', /model/);
  assert.match(result.message ?? '', /unknownKey/);
  assert.ok(loaded.some(isZod), 'zod was loaded to check the config');
});
