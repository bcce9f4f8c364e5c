// `npm run build` (and `prepack`): compiles src/ and the example MCP server to
// dist/ (JavaScript, declarations, source maps), bundles the CLI into a few
// chunks (dist/bundle/cli/) and copies the files read at run time. The
// repository itself runs the TypeScript sources directly.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Files read at run time, not imported: copied next to the compiled code. */
const ASSETS = ['examples/demo/demo-script.json'];

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
  cwd: root,
});
if (compiled.status !== 0) {
  console.error('build: tsc failed (see above)');
  process.exit(compiled.status ?? 1);
}

// Declarations keep the sources' `.ts` specifiers; rewritten to `.js` so every
// TypeScript version and resolution mode reads them like the JavaScript next to them.
const SPECIFIER = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+?)\.ts(['"])/g;
let declarations = 0;
for (const file of walk(dist)) {
  if (!file.endsWith('.d.ts')) continue;
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(SPECIFIER, '$1$2.js$3');
  if (rewritten !== text) writeFileSync(file, rewritten);
  declarations++;
}

/**
 * Modules the code requires lazily by a path next to itself (`createRequire(import.meta.url)`,
 * synchronous, so esbuild neither follows nor renames them): each is also an entry point of the
 * bundle, written under the same name beside the chunks, so the path resolves there too and the
 * module shares its chunks (one copy of each class) with the rest of the CLI.
 * test/e2e/package.e2e.test.ts fails on a lazy load that does not resolve in the packed package.
 */
const LAZY_REQUIRED = ['config/config-schema', 'config/format-config-issues'];

// The CLI as a handful of chunks instead of ~170 modules: at start-up Node spends
// more time resolving and compiling many small files than running them. Chunks are
// split at the CLI's dynamic imports (one per command, provider, …); packages stay
// external. dist/bundle/cli/ is two folders below dist/, as dist/src/cli/ is, so the
// relative paths to dist/examples/ and to package.json stay the same.
await build({
  entryPoints: [
    { in: join(dist, 'src', 'cli', 'main.js'), out: 'main' },
    ...LAZY_REQUIRED.map((path) => ({ in: join(dist, 'src', `${path}.js`), out: basename(path) })),
  ],
  outdir: join(dist, 'bundle', 'cli'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.18',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

// The browser console (web/) → dist/console/, served by `toolgate serve` at /.
const consoleBuild = spawnSync(process.execPath, [join(root, 'scripts', 'build-console.ts')], {
  stdio: 'inherit',
  cwd: root,
});
if (consoleBuild.status !== 0) {
  console.error('build: the console build failed (see above)');
  process.exit(consoleBuild.status ?? 1);
}

for (const asset of ASSETS) {
  const target = join(dist, asset);
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(root, asset), target);
}
console.log(
  `build: dist/ ready (${declarations} declaration files, the CLI bundled, the console built, ${ASSETS.length} assets)`,
);

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
