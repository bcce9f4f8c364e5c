import assert from 'node:assert/strict';
import { ToolgateError } from '../../src/core/index.ts';
import { parseConfig } from '../../src/config/load-config.ts';

/** The problems a config is refused for, one per line of the error (none: it is valid). */
export function configProblems(raw: unknown, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(raw, { source: 'toolgate.yaml', env });
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, 'config_invalid');
    return error.message
      .split('\n')
      .filter((line) => line.startsWith('  - '))
      .map((line) => line.slice(4));
  }
  return [];
}
