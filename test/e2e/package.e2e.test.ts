// The package as users get it: `npm pack` (which builds dist/), installed from
// the tarball into a fresh project, then used the four ways people use it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT, startProcess } from '../support/processes.ts';
import { startMockOpenAI } from '../support/mock-openai-server.ts';
import { findLazyLoads, resolves, type LazyLoad } from '../support/lazy-loads.ts';
import { waitUntil } from '../support/wait-until.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';

/** The README's library example, exactly as written between its markers. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- library-example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- library-example:end -->/.exec(
    readme,
  )?.[1];
  assert.ok(block !== undefined, 'README.md has a library example between its markers');
  return block;
}

/** Paths tried only in a source checkout (src/cli/ → dist/console/), after the installed one. */
const CHECKOUT_ONLY = ['../../dist/console/'];

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** npm and npx from the same Node as the tests, first on PATH. */
const ENV = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`,
  NO_COLOR: '1',
};

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Result> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: options.cwd,
      env: options.env ?? ENV,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

describe('the packed package, installed into a fresh project', { timeout: 300_000 }, () => {
  let work: string;
  let project: string;
  let tarball: string;
  let files: string[];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-pack-'));
    const packed = await sh('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT });
    assert.equal(packed.code, 0, `npm pack failed:\n${packed.stderr}`);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    assert.ok(info !== undefined);
    tarball = join(work, info.filename);
    files = info.files.map((f) => f.path);
    project = join(work, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = await sh('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: project,
    });
    assert.equal(installed.code, 0, `npm install of the tarball failed:\n${installed.stderr}`);
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test('ships the build, its types, the docs and the licence; no TypeScript sources or tests', () => {
    for (const required of [
      'bin/toolgate.js',
      'bin/check-node.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/cli/main.js',
      'dist/bundle/cli/main.js',
      'dist/examples/power-exchange/server.js',
      'dist/examples/demo/demo-script.json',
      'dist/console/index.html',
      'dist/console/app.js',
      'dist/console/app.css',
      'LICENSE',
      'README.md',
      'docs/configuration.md',
    ]) {
      assert.ok(files.includes(required), `${required} is missing from the tarball`);
    }
    const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    assert.deepEqual(sources, [], 'TypeScript sources cannot run from node_modules');
    assert.deepEqual(
      files.filter((f) => /\.test\.|\/test-[^/]*$/.test(f)),
      [],
      'tests are not shipped',
    );
    assert.ok(!files.some((f) => f.startsWith('src/')), 'src/ is not shipped (bin would choose it)');
  });

  test('npx toolgate --version prints the version', async () => {
    const result = await sh('npx', ['--no-install', 'toolgate', '--version'], { cwd: project });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), VERSION);
  });

  test('npx toolgate demo runs the scripted demo against the built example server', async () => {
    const result = await sh('npx', ['--no-install', 'toolgate', 'demo'], { cwd: project });
    assert.equal(result.code, 0, `demo failed:\n${result.stderr}`);
    assert.match(result.stderr, /✓ completed/);
    assert.match(result.stderr, /SCRIPTED/);
    // The script gives no usage: the tokenizer, imported lazily by the bundled CLI, loads from the installed package.
    assert.match(result.stderr, /✓ completed · \d+ steps · ~[\d,]+ tokens \(estimated: [1-9]\d* in, [1-9]\d* out\)/);
    assert.doesNotMatch(result.stderr, /ERR_|Error:/);
  });

  test('the installed `toolgate serve` serves the built console at /', async () => {
    const server = await startProcess({
      command: process.execPath,
      args: [
        join(project, 'node_modules', 'toolgate', 'bin', 'toolgate.js'),
        'serve',
        '--demo',
        '--port',
        '0',
        '--store',
        'memory:',
      ],
      env: { NO_COLOR: '1', TOOLGATE_CONSOLE_DIR: '' },
      cwd: project,
      ready: /console: (http:\/\/\S+)/,
      timeoutMs: 30_000,
    });
    try {
      const url = server.match[1] ?? '';
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script type="module" src="\/console\/app.js">/);
      const script = await fetch(new URL('/console/app.js', url));
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type') ?? '', /javascript/);
    } finally {
      await server.stop();
    }
  });

  test('the installed `toolgate gateway --stdio` serves the built example server to an MCP client', async () => {
    // The client is the official SDK the package itself installed; the gateway is spawned as Claude Desktop would.
    const script = join(project, 'gateway-client.mjs');
    const bin = join(project, 'node_modules', 'toolgate', 'bin', 'toolgate.js');
    const example = join(project, 'node_modules', 'toolgate', 'dist', 'examples', 'power-exchange', 'server.js');
    writeFileSync(
      script,
      `import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const client = new Client({ name: 'consumer', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(bin)}, ` +
        (`'gateway', '--stdio', '--mcp', ` +
          `${JSON.stringify(`pe=${process.execPath} ${example}`)}, '--store', 'memory:'] }));
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'placeOrder', arguments: { ` +
          (`userId: 'alice', side: 'SIDEWAYS', price: 1, qty: 1, symbol: 'DE-BASE-D+1' } });
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), refused: ` +
            `result.isError === true, text: result.content[0]?.text ?? '' }));
`)),
    );
    const result = await sh(process.execPath, [script], { cwd: project });
    assert.equal(result.code, 0, result.stderr);
    const out = JSON.parse(result.stdout) as { tools: string[]; refused: boolean; text: string };
    assert.ok(out.tools.includes('getOrderBook') && out.tools.includes('placeOrder'), out.tools.join(', '));
    assert.equal(out.refused, true);
    assert.match(out.text, /side: must be one of "BUY", "SELL"/);
  });

  test('every file the build loads by a path of its own resolves in the installed package', () => {
    const dist = join(project, 'node_modules', 'toolgate', 'dist');
    const loads = [...walk(join(dist, 'bundle')), ...walk(join(dist, 'src')), ...walk(join(dist, 'examples'))]
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) => findLazyLoads(file, readFileSync(file, 'utf8')));
    // The scan sees the loads it must check: the config schema the CLI requires lazily, by its path.
    assert.ok(
      loads.some(
        (l) =>
          l.file.includes(`${sep}bundle${sep}`) && l.kind === 'require' && l.specifiers?.includes('./config-schema.js'),
      ),
      'the scan finds the lazy require of the config schema in the CLI bundle',
    );
    const where = (l: LazyLoad): string => `${relative(dist, l.file)}:${l.line} ${l.text}`;
    const unknown = loads.filter((l) => l.specifiers === undefined).map(where);
    assert.deepEqual(
      unknown,
      [],
      'a path computed from something the scan cannot follow: write ' +
        'it as a literal (or from a list of literals) next to the load',
    );
    const broken = loads
      .filter((l) => !(l.specifiers ?? []).some((s) => resolves(l, s) || CHECKOUT_ONLY.includes(s)))
      .map((l) => `${where(l)} → ${(l.specifiers ?? []).join(' | ')}`);
    assert.deepEqual(
      broken,
      [],
      'these paths do not exist in the installed package (a bundled chunk is ' +
        'renamed and moved: add the module to LAZY_REQUIRED in scripts/build.ts)',
    );
  });

  test('npx toolgate run --help explains its flags', async () => {
    const result = await sh('npx', ['--no-install', 'toolgate', 'run', '--help'], { cwd: project });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /--model <provider:model>/);
    assert.match(result.stdout, /Example: --model /);
  });

  test('an ESM script imports the library and uses it', async () => {
    const script = join(project, 'use.mjs');
    writeFileSync(
      script,
      `import { parseModelMessage, resolveSettings, Toolgate } from 'toolgate';
const parsed = parseModelMessage({ text: '<tool_call>{"name":"get_price","arguments":{"qty":7}}</tool_call>', ` +
        (`tools: [{ name: 'get_price', inputSchema: { type: 'object', properties: { qty: { type: 'number' } } } }] });
const toolgate = new Toolgate({ settings: resolveSettings({ providers: { ` +
          `vllm: { type: 'openai', baseUrl: 'http://vllm:8000/v1' } } }, {}, {}) });
// Every provider's adapter loads from the build when first used.
const models = await Promise.all(['openai:m', 'anthropic:claude-sonnet-4-5', ` +
          (`'ollama:qwen2.5:7b', 'vllm:q'].map(async (id) => (await toolgate.model(id)).id));
await toolgate.close();
console.log(JSON.stringify({ calls: parsed.calls.map((c) => ({ name: ` +
            `c.name, arguments: c.arguments })), toolgate: typeof toolgate.run, models }));
`)),
    );
    const result = await sh(process.execPath, [script], { cwd: project });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      calls: [{ name: 'get_price', arguments: { qty: 7 } }],
      toolgate: 'function',
      models: ['openai:m', 'anthropic:claude-sonnet-4-5', 'ollama:qwen2.5:7b', 'vllm:q'],
    });
  });

  test('the subpath entries load from the installed package: a store, the server, parsing, MCP sources', async () => {
    const script = join(project, 'subpaths.mjs');
    writeFileSync(
      script,
      `import { openSqliteRunStore } from 'toolgate/store/sqlite';
import { MemoryRunStore } from 'toolgate/store/memory';
import { PostgresRunStore, openPostgresRunStore } from 'toolgate/store/postgres';
import { createHttpHandler, startHttpServer } from 'toolgate/server';
import { parseModelText, deriveFormat } from 'toolgate/parsing';
import { ToolRegistry, defineTool } from 'toolgate/mcp';
import { ToolgateApiError, ToolgateClient } from 'toolgate/client';
import { MemoryRunStore as FromMain } from 'toolgate';
const notFound = JSON.stringify({ error: { code: 'not_found', message: 'run run_1 not found' } });
const remote = new ToolgateClient({
  url: 'http://toolgate.test/',
  fetch: async () => new Response(notFound, { status: 404 }),
});
const refused = await remote.getRun('run_1').catch((e) => e instanceof ToolgateApiError && [e.status, e.code, e.runId]);
const store = await openSqliteRunStore({ path: ${JSON.stringify(join(project, 'subpaths.db'))} });
const run = await store.createRun({ input: 'hi', model: 'openai:m' });
await store.close();
const parsed = parseModelText('<tool_call>{"name":"ping","arguments":{}}</tool_call>', ` +
        `{ tools: [{ name: 'ping', inputSchema: { type: 'object' } }] });
const tool = defineTool({ name: 'ping', description: 'ping', effect: 'read', ` +
        `inputSchema: { type: 'object', properties: {} }, execute: async () => 'pong' });
console.log(JSON.stringify({
  run: typeof run.id,
  sameClass: MemoryRunStore === FromMain,
  functions: [openPostgresRunStore, createHttpHandler, startHttpServer, deriveFormat].map((f) => typeof f),
  classes: [PostgresRunStore, ToolRegistry].map((c) => typeof c),
  calls: parsed.calls.map((c) => c.name),
  tool: tool.name,
  client: [remote.url, refused],
}));
`,
    );
    const result = await sh(process.execPath, [script], { cwd: project });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      run: 'string',
      sameClass: true,
      functions: ['function', 'function', 'function', 'function'],
      classes: ['function', 'function'],
      calls: ['ping'],
      tool: 'ping',
      client: ['http://toolgate.test', [404, 'not_found', 'run_1']],
    });
  });

  test(
    'the README library example runs as written (tools in ' + 'code, an approval, the model behind OPENAI_BASE_URL)',
    async () => {
      const mock = await startMockOpenAI({
        responses: [
          { toolCalls: [{ id: 'c1', name: 'getOrder', arguments: '{"orderId":"42"}' }] },
          { toolCalls: [{ id: 'c2', name: 'cancelOrder', arguments: '{"orderId":42}' }] },
          { text: 'Order 42 is cancelled.' },
        ],
      });
      try {
        writeFileSync(join(project, 'readme-example.mjs'), readmeExample());
        const result = await new Promise<Result>((resolve) => {
          execFile(
            process.execPath,
            ['readme-example.mjs'],
            { cwd: project, env: { ...ENV, OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' } },
            (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, stdout, stderr }),
          );
        });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, 'approving cancelOrder {"orderId":42}\ncompleted Order 42 is cancelled.\n');
        assert.equal(mock.remaining(), 0);
        const firstTools = (mock.requests[0]?.body.tools ?? []) as { function: { name: string } }[];
        assert.deepEqual(firstTools.map((t) => t.function.name).sort(), ['cancelOrder', 'getOrder']);
      } finally {
        await mock.close();
      }
    },
  );

  test(
    'a strict nodenext TypeScript project compiles against ' +
      'the types with 0 errors, and its type errors are caught',
    async () => {
      const ts = join(project, 'ts');
      mkdirSync(join(ts, 'node_modules', '@types'), { recursive: true });
      symlinkSync(join(project, 'node_modules', 'toolgate'), join(ts, 'node_modules', 'toolgate'), 'dir');
      symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(ts, 'node_modules', '@types', 'node'), 'dir');
      writeFileSync(join(ts, 'package.json'), JSON.stringify({ name: 'ts-consumer', private: true, type: 'module' }));
      const compilerOptions = {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
      };
      // One compilation for the right uses and the wrong one (a tsc run checks all of @types/node, and that is most of
      // its time):
      // good.ts, subpaths.ts and the README example must have no error, bad.ts exactly the ones expected.
      writeFileSync(
        join(ts, 'tsconfig.json'),
        JSON.stringify({ compilerOptions, include: ['good.ts', 'subpaths.ts', 'readme.ts', 'bad.ts'] }),
      );
      writeFileSync(join(ts, 'readme.ts'), `${readmeExample()}\nexport {};\n`);
      writeFileSync(
        join(ts, 'good.ts'),
        `import { Toolgate, parseModelMessage, resolveSettings, type ` +
          `CreateToolgateOptions, type RunEvent, type Settings } from 'toolgate';
const settings: Settings = resolveSettings({ maxSteps: 3 });
const toolgate = new Toolgate({ settings });
const onEvent = (event: RunEvent): string => event.type;
const parsed = parseModelMessage({ text: 'hi', tools: [] });
const options: CreateToolgateOptions = {
  model: 'anthropic:claude-sonnet-4-5',
  models: ['ollama:*', 'vllm:*'],
  providers: { anthropic: { maxTokens: 2048, thinking: { budgetTokens: 1024 } }, ollama: { ` +
          (`host: 'gpu-box', think: 'low' }, vllm: { type: 'openai', baseUrl: 'http://vllm:8000/v1' } },
};
export const used: [Toolgate, typeof onEvent, number, ` +
            `CreateToolgateOptions] = [toolgate, onEvent, parsed.calls.length, options];
`),
      );
      writeFileSync(
        join(ts, 'subpaths.ts'),
        `import { openSqliteRunStore, type OpenSqliteRunStoreOptions } from 'toolgate/store/sqlite';
import { openPostgresRunStore, type OpenPostgresRunStoreOptions } from 'toolgate/store/postgres';
import { MemoryRunStore } from 'toolgate/store/memory';
import { createHttpHandler, type HttpServerOptions } from 'toolgate/server';
import { parseModelMessage, type CallFormat } from 'toolgate/parsing';
import { ToolRegistry, defineTool, type LocalTool } from 'toolgate/mcp';
import {
  ToolgateApiError, ToolgateClient, type RunEvent as ClientEvent, type ToolgateClientOptions,
} from 'toolgate/client';
import type { RunStore } from 'toolgate';
const sqlite: OpenSqliteRunStoreOptions = { path: 'x.db' };
type Exported = [typeof createHttpHandler, HttpServerOptions | undefined, CallFormat | undefined];
type FromMcp = [typeof ToolRegistry, typeof defineTool, LocalTool | undefined];
export const stores: [Promise<RunStore>, RunStore, typeof openPostgresRunStore] =
  [openSqliteRunStore(sqlite), new MemoryRunStore(), openPostgresRunStore];
export const server: Exported = [createHttpHandler, undefined, undefined];
export const mcp: FromMcp = [ToolRegistry, defineTool, undefined];
export const postgres: OpenPostgresRunStoreOptions | undefined = undefined;
export const calls: number = parseModelMessage({ text: '', tools: [] }).calls.length;
const clientOptions: ToolgateClientOptions = { url: 'http://127.0.0.1:8787', apiKey: 'k', credentials: 'same-origin' };
const remote = new ToolgateClient(clientOptions);
export const approved: Promise<string> = remote.approve('run_1', { toolCallId: 'c1' }).then((run) => run.status);
export const followed: AsyncIterable<ClientEvent> = remote.events('run_1', { after: 2, retry: { attempts: 3 } });
export const refused = (e: unknown): number | undefined => (e instanceof ToolgateApiError ? e.status : undefined);
`,
      );
      // The declarations are real types, not `any`: a wrong use is an error.
      writeFileSync(
        join(ts, 'bad.ts'),
        `import { resolveSettings, type CreateToolgateOptions } from 'toolgate';\nexport const n: number = ` +
          (`resolveSettings({}).maxSteps.toFixed();\nexport const o: ` +
            `CreateToolgateOptions = { providers: { ollama: { think: 'very' } } };\n`),
      );
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const checked = await sh(process.execPath, [tsc, '-p', ts, '--pretty', 'false'], { cwd: ts });
      assert.notEqual(checked.code, 0, 'bad.ts has errors');
      assert.equal(checked.stderr, '');
      // Every line of tsc's report starts an error (with --pretty false, none spans lines but its own continuations,
      // indented).
      const errors = checked.stdout.split('\n').filter((line) => line !== '' && !line.startsWith(' '));
      assert.deepEqual(
        errors.filter((line) => !line.startsWith('bad.ts(')),
        [],
        `good.ts, the README example and the declarations have 0 errors:\n${checked.stdout}`,
      );
      assert.equal(errors.length, 2, `two errors, both in bad.ts:\n${checked.stdout}`);
      assert.match(checked.stdout, /^bad\.ts\(2,14\): error TS2322/m);
      assert.match(checked.stdout, /^bad\.ts\(3,\d+\): error TS2322/m, 'provider settings are typed');
    },
  );

  describe('every command that reads a config, as installed', () => {
    const KEYS = {
      ACME_KEY: 'acme-key-0123456789',
      GLOBEX_KEY: 'globex-key-0123456789',
      SESSION_SECRET: 's'.repeat(40),
      HOOK_SECRET: 'h'.repeat(32),
    };
    let configEnv: NodeJS.ProcessEnv;

    before(() => {
      const example = join(project, 'node_modules', 'toolgate', 'dist', 'examples', 'power-exchange', 'server.js');
      // Policies, tenants with keys and the server's secret from the environment: what a deployment writes.
      writeFileSync(
        join(project, 'toolgate.yaml'),
        `model: openai:gpt-4o-mini
systemPrompt: You trade for the consumer project.
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(example)}]
tools:
  "power-exchange/getOrderBook":
    approval: required
  "power-exchange/placeOrder":
    inject:
      userId: "{{user.id}}"
    # A CEL condition: its library is loaded lazily, which must resolve in the packed package too.
    conditions:
      - when: "args.qty * args.price > 10000"
        approval: required
tenants:
  acme:
    approvers:
      "power-exchange/placeOrder": [trader]
    apiKeys:
      - key: env:ACME_KEY
        userId: alice
        roles: [trader]
  globex:
    deny: ["power-exchange/placeOrder"]
    apiKeys: ["env:GLOBEX_KEY"]
server:
  sessionSecret: env:SESSION_SECRET
# Tokens of an issuer (JOSE from the installed package) and approvals out of band (links signed with it too).
auth:
  oidc:
    - issuer: http://127.0.0.1:9/issuer
approvals:
  notify:
    - { name: desk, url: "http://127.0.0.1:9/hook", secret: env:HOOK_SECRET }
  timeoutMs: 3600000
gateway:
  identity:
    tenant: globex
`,
      );
      configEnv = { ...ENV, ...KEYS, TOOLGATE_HOME: join(project, 'home') };
    });
    after(() => rmSync(join(project, 'toolgate.yaml'), { force: true }));

    test("tools --config lists the tools with the rules of the file, and a tenant's view", async () => {
      const all = await sh('npx', ['--no-install', 'toolgate', 'tools', '--config', 'toolgate.yaml'], {
        cwd: project,
        env: configEnv,
      });
      assert.equal(all.code, 0, all.stderr);
      assert.match(
        all.stdout,
        /getOrderBook {2}READ \(annotation, needs approval\)/,
        'the approval rule of the file applies',
      );
      assert.match(all.stdout, /placeOrder {2}WRITE/);
      const globex = await sh(
        'npx',
        ['--no-install', 'toolgate', 'tools', '--config', 'toolgate.yaml', '--tenant', 'globex', '--json'],
        { cwd: project, env: configEnv },
      );
      assert.equal(globex.code, 0, globex.stderr);
      const names = (JSON.parse(globex.stdout) as { name: string }[]).map((t) => t.name);
      assert.ok(
        names.includes('getOrderBook') && !names.includes('placeOrder'),
        `globex's deny applies: ${names.join(', ')}`,
      );
    });

    test('run beside a toolgate.yaml uses its model, prompt and rules', async () => {
      const mock = await startMockOpenAI({
        responses: [{ toolCalls: [{ id: 'c1', name: 'getOrderBook', arguments: '{}' }] }],
      });
      try {
        const result = await sh('npx', ['--no-install', 'toolgate', 'run', 'How is the market?'], {
          cwd: project,
          env: { ...configEnv, OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' },
        });
        assert.equal(result.code, 3, `the read waits for approval (its rule in the file):\n${result.stderr}`);
        assert.match(result.stderr, /getOrderBook/);
        const [request] = mock.requests;
        assert.equal(request?.body.model, 'gpt-4o-mini');
        assert.match(JSON.stringify(request?.body.messages), /You trade for the consumer project/);
      } finally {
        await mock.close();
      }
    });

    test(
      'parsing.formats and parsing.chatTemplates from a ' + 'config, and parse --chat-template --explain, as installed',
      async () => {
        // A real published template beside the config, referred to by a path relative to it.
        cpSync(join(ROOT, 'test', 'fixtures', 'templates', 'Qwen3-Coder.jinja'), join(project, 'qwen3-coder.jinja'));
        const exampleServer = join(
          project,
          'node_modules',
          'toolgate',
          'dist',
          'examples',
          'power-exchange',
          'server.js',
        );
        writeFileSync(
          join(project, 'parsing.yaml'),
          `model: openai:gpt-4o-mini
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: ` +
            `[${JSON.stringify(exampleServer)}]
tools:
  "power-exchange/getOrderBook":
    approval: required
parsing:
  chatTemplates:
    "openai:gpt-4o-mini": ./qwen3-coder.jinja
  formats:
    - id: double-angle
      call: { begin: "<<call>>", end: "<</call>>" }
      name: { slot: marker, after: "::" }
      arguments: { grammar: json }
`,
        );
        const explain = await sh(
          'npx',
          ['--no-install', 'toolgate', 'parse', '--chat-template', 'qwen3-coder.jinja', '--explain'],
          { cwd: project, env: configEnv },
        );
        assert.equal(explain.code, 0, explain.stderr);
        assert.match(explain.stdout, /<function=/, `the derived format names its markers:\n${explain.stdout}`);
        // The model writes its call in the configured format, as text: the call is read, and waits for approval (its
        // rule).
        const mock = await startMockOpenAI({ responses: [{ text: '<<call>>getOrderBook::{"depth": 3}<</call>>' }] });
        try {
          const result = await sh(
            'npx',
            ['--no-install', 'toolgate', 'run', '--config', 'parsing.yaml', 'How is the market?'],
            { cwd: project, env: { ...configEnv, OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' } },
          );
          assert.equal(
            result.code,
            3,
            `the call written in the configured format waits for approval:\n${result.stderr}`,
          );
          assert.match(result.stderr, /getOrderBook/);
          assert.doesNotMatch(
            result.stderr,
            /chat template|⚠/i,
            'the template loads and is analysed in the installed package: no warning',
          );
        } finally {
          await mock.close();
        }
      },
    );

    test('serve --config: tenants and their keys, policies and the session secret from the environment', async () => {
      const server = await startProcess({
        command: process.execPath,
        args: [
          join(project, 'node_modules', 'toolgate', 'bin', 'toolgate.js'),
          'serve',
          '--config',
          'toolgate.yaml',
          '--port',
          '0',
          '--store',
          'sqlite:./data/serve.db',
        ],
        env: { ...KEYS, NO_COLOR: '1', OPENAI_API_KEY: 'test', TOOLGATE_HOME: join(project, 'home') },
        cwd: project,
        ready: /serving on (http:\/\/\S+)/,
        timeoutMs: 30_000,
      });
      try {
        const url = server.match[1] ?? '';
        const tools = async (key: string) => {
          const response = await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${key}` } });
          assert.equal(response.status, 200);
          return new Map(
            (
              (await response.json()) as {
                tools: { name: string; approval: string; injected: string[]; available: boolean }[];
              }
            ).tools.map((t) => [t.name, t]),
          );
        };
        const acme = await tools(KEYS.ACME_KEY);
        assert.equal(acme.get('getOrderBook')?.approval, 'required');
        assert.deepEqual(acme.get('placeOrder')?.injected, ['userId']);
        assert.notEqual((await tools(KEYS.GLOBEX_KEY)).get('placeOrder')?.available, true, "globex's deny applies");
        assert.equal((await fetch(`${url}/v1/tools`)).status, 401);
        const signIn = await fetch(`${url}/v1/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: new URL(url).origin },
          body: JSON.stringify({ apiKey: KEYS.ACME_KEY }),
        });
        assert.equal(signIn.status, 200, await signIn.text());
        assert.match(
          signIn.headers.get('set-cookie') ?? '',
          /HttpOnly/i,
          'a session signed with the secret from the environment',
        );
        const session = await fetch(`${url}/v1/session`, { headers: { authorization: `Bearer ${KEYS.ACME_KEY}` } });
        assert.deepEqual(((await session.json()) as { roles?: string[] }).roles, ['trader'], "the key's roles");
        // A token of an issuer nobody configured: refused by the installed JOSE code, naming the metadata.
        const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
        const token = `${part({ alg: 'RS256' })}.${part({ iss: 'https://elsewhere.example', sub: 'x' })}.c2ln`;
        const refused = await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(refused.status, 401);
        assert.match(
          refused.headers.get('www-authenticate') ?? '',
          /resource_metadata="[^"]+oauth-protected-resource"/,
        );
        const metadata = await fetch(`${url}/.well-known/oauth-protected-resource`);
        assert.deepEqual(((await metadata.json()) as { authorization_servers: string[] }).authorization_servers, [
          'http://127.0.0.1:9/issuer',
        ]);
        const link = await fetch(`${url}/v1/approvals/not.a.link`);
        assert.equal(link.status, 404, 'a forged decision link is refused');
        assert.match(await link.text(), /Nothing was decided/);
      } finally {
        await server.stop();
      }
    });

    test('gateway --config over stdio serves the tools under the rules of its tenant', async () => {
      const script = join(project, 'gateway-config-client.mjs');
      const bin = join(project, 'node_modules', 'toolgate', 'bin', 'toolgate.js');
      writeFileSync(
        script,
        `import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const client = new Client({ name: 'consumer', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(bin)}, ` +
          `'gateway', '--stdio', '--config', 'toolgate.yaml', '--store', 'memory:'], env: process.env }));
const { tools } = await client.listTools();
const book = await client.callTool({ name: 'getMarketMetrics', arguments: {} });
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), ok: book.isError !== true }));
`,
      );
      const result = await sh(process.execPath, [script], { cwd: project, env: configEnv });
      assert.equal(result.code, 0, result.stderr);
      const out = JSON.parse(result.stdout) as { tools: string[]; ok: boolean };
      assert.ok(out.tools.includes('getMarketMetrics'), out.tools.join(', '));
      assert.ok(
        !out.tools.includes('placeOrder'),
        `the stdio session acts for globex, whose deny hides placeOrder: ${out.tools.join(', ')}`,
      );
      assert.equal(out.ok, true);
    });

    test(
      "the deploy/ image's entrypoint serves deploy/toolgate.yaml on PostgreSQL, and stops gracefully on SIGTERM",
      { skip: postgresSkip() },
      async () => {
        // As deploy/Dockerfile runs it: ENTRYPOINT and CMD with the package installed where the image
        // installs it (its WORKDIR, /app, is the project here), the config where the compose file mounts
        // it, and the environment the compose file sets.
        const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
        const instruction = (name: string): string[] =>
          JSON.parse(new RegExp(`^${name} (\\[.*\\])$`, 'm').exec(dockerfile)?.[1] ?? 'null') as string[];
        const workdir = /^WORKDIR (\S+)$/m.exec(dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')))?.[1] ?? '';
        assert.equal(workdir, '/app');
        const inImage = (arg: string): string =>
          arg.startsWith(`${workdir}/`) ? join(project, arg.slice(workdir.length + 1)) : arg;
        const mounted = join(project, 'config', 'toolgate.yaml');
        mkdirSync(dirname(mounted), { recursive: true });
        writeFileSync(
          mounted,
          readFileSync(join(ROOT, 'deploy', 'toolgate.yaml'), 'utf8').replaceAll(`${workdir}/`, `${project}/`),
        );
        const [command = '', ...args] = [...instruction('ENTRYPOINT'), ...instruction('CMD')].map((a) =>
          a === '/config/toolgate.yaml' ? mounted : inImage(a),
        );
        const created: string[] = [];
        const databaseUrl = await createDatabase('toolgate_pack', created);
        const apiKey = 'deploy-key-0123456789';
        // The port is the one change: 0 instead of the image's 8787, which another process here may hold.
        const server = await startProcess({
          command,
          args: [...args, '--port', '0'],
          env: {
            PATH: ENV['PATH'] ?? '',
            NODE_ENV: 'production',
            DATABASE_URL: databaseUrl,
            TOOLGATE_API_KEY: apiKey,
            TOOLGATE_SESSION_SECRET: 'd'.repeat(40),
            OPENAI_API_KEY: 'test',
            NO_COLOR: '1',
          },
          cwd: project,
          ready: /serving on (http:\/\/\S+)/,
          timeoutMs: 60_000,
          detached: true,
        });
        try {
          const url = (server.match[1] ?? '').replace('0.0.0.0', '127.0.0.1');
          assert.match(server.output(), /store postgres:\/\//);
          assert.equal((await fetch(`${url}/readyz`)).status, 200);
          const response = await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${apiKey}` } });
          assert.equal(response.status, 200);
          const names = ((await response.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
          assert.ok(names.includes('getOrderBook'), `the example server at its path in the image: ${names.join(', ')}`);
          // `docker stop` sends SIGTERM to the entrypoint: toolgate itself must get it, and shut down as documented.
          const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
          server.child.kill('SIGTERM');
          assert.equal(await exited, 0);
          await waitUntil(
            () => /stopping: no new runs/.test(server.output()),
            "toolgate's own shutdown line (the entrypoint must pass SIGTERM to toolgate)",
          );
        } finally {
          // The whole process group: nothing the entrypoint started outlives the test.
          try {
            process.kill(-(server.child.pid ?? 0), 'SIGKILL');
          } catch {
            // already gone
          }
          for (const name of created) await dropDatabase(name);
        }
      },
    );
  });
});
