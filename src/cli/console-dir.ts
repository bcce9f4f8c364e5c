import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built console is: `TOOLGATE_CONSOLE_DIR` when set (relative to the
 * working directory), else dist/console/ of this package — two folders up from
 * the installed CLI (dist/src/cli/, dist/bundle/cli/), or dist/console/ of a
 * source checkout (src/cli/). A checkout that has not built it yet gets the
 * path anyway: the server then says how to build it.
 */
export function consoleDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['TOOLGATE_CONSOLE_DIR'];
  if (configured !== undefined && configured !== '') return isAbsolute(configured) ? configured : resolve(configured);
  const installed = fileURLToPath(new URL('../../console/', import.meta.url));
  const checkout = fileURLToPath(new URL('../../dist/console/', import.meta.url));
  if (existsSync(resolve(installed, 'index.html'))) return installed;
  return checkout;
}
