// The dependency rule of docs/architecture.md, as a test: imports point inward only.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';

/** Which top-level areas of src/ each area may import. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  parsing: ['core'],
  validation: ['core'],
  gate: ['core', 'validation'],
  providers: ['core', 'parsing'],
  tools: ['core'],
  store: ['core'],
  orchestrator: ['core', 'parsing', 'validation', 'gate'],
  config: ['core', 'validation'],
  server: ['core', 'orchestrator'],
  gateway: ['core', 'orchestrator', 'gate', 'validation'],
  app: [
    'core',
    'parsing',
    'validation',
    'gate',
    'providers',
    'tools',
    'store',
    'orchestrator',
    'config',
    'server',
    'gateway',
  ],
  cli: ['app', 'server', 'config', 'core', 'client'],
  // The runs API's client (toolgate/client): core only, no node: or packages (a test below), so that it bundles for
  // browsers.
  client: ['core'],
  // The package's subpath entries (toolgate/server, toolgate/store/…): named re-exports only.
  entries: [
    'core',
    'parsing',
    'validation',
    'gate',
    'providers',
    'tools',
    'store',
    'orchestrator',
    'config',
    'server',
    'gateway',
    'app',
    'client',
  ],
};

/** Packages bundled into the console: uPlot draws the Stats view's charts (docs/decisions/0027). */
const CONSOLE_PACKAGES: readonly string[] = ['uplot'];

const IMPORT_RE = new RegExp(
  String.raw`(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|impo` +
    String.raw`rt\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]`,
  'g',
);

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec !== undefined) out.push(spec);
  }
  return out;
}

function areaOf(file: string): string | undefined {
  const rel = relative('src', file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : 'root';
}

const sourceFiles = globSync('src/**/*.ts').filter((f) => !f.endsWith('.test.ts'));

describe('architecture: import rules', () => {
  it('finds the source tree', () => {
    assert.ok(sourceFiles.length > 10, `expected source files under src/, found ${sourceFiles.length}`);
  });

  it('every area imports only the areas it may', () => {
    const violations: string[] = [];
    for (const file of sourceFiles) {
      const area = areaOf(file);
      if (area === undefined || area === 'root') continue;
      const allowed = ALLOWED[area];
      assert.ok(allowed, `src/${area}/ is not in the import table: add it to docs/architecture.md and this test`);
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = areaOf(join(dirname(file), spec));
        if (target === undefined || target === area) continue;
        if (!allowed.includes(target)) violations.push(`${file} imports ${spec} (${area} → ${target} is not allowed)`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('core, parsing, validation and gate do no I/O (no node: or package imports except allowed libraries)', () => {
    const pureLibs: Record<string, readonly string[]> = {
      core: [],
      // @huggingface/jinja: a pure interpreter for chat templates (no I/O), guarded by render-template.ts.
      parsing: ['jsonrepair', '@huggingface/jinja'],
      // node:module only for createRequire: ajv is loaded on the first compile (decision 0007).
      validation: ['ajv', 'ajv/dist/2020.js', 'ajv-formats', 'ajv/dist/2019.js', 'node:module'],
      // @marcbachmann/cel-js: a pure CEL interpreter for policy conditions, required on the first compile through
      // node:module's createRequire (as ajv is), so a policy without CEL never loads it.
      gate: ['@marcbachmann/cel-js', 'node:module'],
    };
    const violations: string[] = [];
    for (const file of sourceFiles) {
      const area = areaOf(file);
      if (area === undefined || !(area in pureLibs)) continue;
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.')) continue;
        if (!pureLibs[area]?.includes(spec)) violations.push(`${file} imports ${spec}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('the client (src/client/) takes only core (pure: no node:) and no package imports: it runs in browsers', () => {
    const files = sourceFiles.filter((f) => areaOf(f) === 'client');
    assert.ok(files.length > 3, `expected the client's sources under src/client/, found ${files.length}`);
    const violations: string[] = [];
    for (const file of files) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) violations.push(`${file} imports ${spec}`);
        else if (areaOf(join(dirname(file), spec)) !== 'client' && areaOf(join(dirname(file), spec)) !== 'core')
          violations.push(`${file} imports ${spec}; the client may only import core`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('tools reach the run loop only through executeToolCall', () => {
    // The gate lives in execute-tool-call.ts: any other orchestrator file calling
    // a tool directly would bypass it.
    const offenders = globSync('src/orchestrator/**/*.ts')
      .filter((f) => !f.endsWith('.test.ts') && !f.endsWith(`${sep}execute-tool-call.ts`))
      .filter((f) => /\.callTool\s*\(/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it(
    'the console (web/) takes only types from the server side and the client (src/client/), ' +
      'and no packages but its charting library: it talks to the server over HTTP',
    () => {
      const files = globSync('web/**/*.ts').filter((f) => !f.endsWith('.test.ts'));
      assert.ok(files.length > 3, `expected the console's sources under web/, found ${files.length}`);
      const violations: string[] = [];
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        for (const spec of importsOf(file)) {
          const target = join(dirname(file), spec);
          if (!spec.startsWith('.')) {
            if (!CONSOLE_PACKAGES.includes(spec)) violations.push(`${file} imports the package ${spec}`);
          } else if (!relative('web', target).startsWith('..')) continue;
          else if (areaOf(target) === 'client') continue;
          else if (areaOf(target) !== 'core')
            violations.push(`${file} imports ${spec} (web → ${areaOf(target) ?? 'outside src'} is not allowed)`);
          else if (
            !new RegExp(
              `import\\s+type\\s[^;]*?from\\s+['"]${spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` +
                `['"]|import\\(['"]${spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]\\)\\.`,
            ).test(text)
          ) {
            violations.push(`${file} imports ${spec} as code; the console may only \`import type\` from core`);
          }
        }
      }
      assert.deepEqual(violations, []);
    },
  );

  it('the import checker itself catches a forbidden import', () => {
    // Guard against a regex that silently matches nothing.
    const specs = importsOf('src/store/memory/memory-run-store.ts');
    assert.ok(
      specs.some((s) => s.includes('core/index.ts')),
      `parsed imports: ${specs.join(', ')}`,
    );
    assert.equal(areaOf(join('src/store/memory', '../../core/index.ts')), 'core');
  });
});
