import { readFileSync } from 'node:fs';

/**
 * This package's version, read from its package.json: two folders up from
 * the sources (src/cli/), three from the build (dist/src/cli/).
 */
export function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'toolgate' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not this folder
    }
  }
  return 'unknown';
}
