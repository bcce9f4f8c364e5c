// Builds the browser console (web/) into dist/console/: one bundled script, the
// stylesheet and the page. Nothing is loaded from elsewhere at run time. Run by
// `npm run build`, `npm start` and `npm test`; `toolgate serve` serves the result.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
// `--out <dir>`: build elsewhere (tests serve their own copy while `npm pack` rebuilds dist/).
const outFlag = process.argv.indexOf('--out');
const out =
  outFlag > 0 && process.argv[outFlag + 1] !== undefined
    ? resolve(process.argv[outFlag + 1] as string)
    : join(root, 'dist', 'console');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'web', 'src', 'main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// One stylesheet: uPlot's own rules (the charts' layout) first, so the console's may override them.
const uplotCss = readFileSync(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css'), 'utf8');
writeFileSync(join(out, 'app.css'), `${uplotCss}\n${readFileSync(join(root, 'web', 'styles.css'), 'utf8')}`);
cpSync(join(root, 'web', 'index.html'), join(out, 'index.html'));
console.log(`build: the console is in ${out}`);
