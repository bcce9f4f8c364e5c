import { readFileSync } from 'node:fs';
import { isJsonObject } from '../core/index.ts';

/**
 * This package's version, read from its package.json: two folders up from
 * the sources (src/cli/), three from the build (dist/src/cli/).
 */
export function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8'));
      if (isJsonObject(pkg) && pkg['name'] === 'toolgate' && typeof pkg['version'] === 'string') return pkg['version'];
    } catch {
      // not this folder
    }
  }
  return 'unknown';
}
