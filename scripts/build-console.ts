// Builds the browser console (web/) into dist/console/: one bundled script, the
// stylesheet and the page. Nothing is loaded from elsewhere at run time. Run by
// `npm run build`, `npm start` and `npm test`; `toolgate serve` serves the result.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
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
cpSync(join(root, 'web', 'styles.css'), join(out, 'app.css'));
cpSync(join(root, 'web', 'index.html'), join(out, 'index.html'));
console.log(`build: the console is in ${out}`);
