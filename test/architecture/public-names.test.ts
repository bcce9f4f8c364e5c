// The package's public names, pinned: the main entry and every subpath entry export exactly
// the names in public-names.json. A name added or removed fails here, so that a change of the
// public API is always deliberate (update the JSON and docs/library.md together).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { entryExports } from '../support/entry-exports.ts';

interface PinnedEntry {
  file: string;
  values: string[];
  types: string[];
}

const pinned = JSON.parse(readFileSync('test/architecture/public-names.json', 'utf8')) as Record<string, PinnedEntry>;
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, unknown> };

describe('architecture: public names', () => {
  it('pins the main entry and the subpath entries', () => {
    assert.deepEqual(Object.keys(pinned).sort(), [
      '.',
      './client',
      './mcp',
      './parsing',
      './server',
      './store/memory',
      './store/postgres',
      './store/sqlite',
    ]);
  });

  for (const [subpath, entry] of Object.entries(pinned)) {
    describe(`entry ${subpath} (${entry.file})`, () => {
      it('is explicit named exports only, and exports exactly the pinned names', () => {
        const found = entryExports(entry.file);
        assert.deepEqual(found.other, [], `${entry.file} may hold only explicit named re-exports`);
        assert.deepEqual(found.values, [...entry.values].sort(), 'value names');
        assert.deepEqual(found.types, [...entry.types].sort(), 'type names');
      });

      it('exports the pinned values at run time', async () => {
        const module: Record<string, unknown> = await import(pathToFileURL(entry.file).href);
        assert.deepEqual(Object.keys(module).sort(), [...entry.values].sort());
        for (const name of entry.values) assert.notEqual(module[name], undefined, `${name} is undefined at run time`);
      });

      it('is mapped in package.json to its compiled file and declarations', () => {
        const built = entry.file.replace(/^src\//, './dist/src/').replace(/\.ts$/, '');
        assert.deepEqual(manifest.exports[subpath], { types: `${built}.d.ts`, default: `${built}.js` });
      });
    });
  }

  it('the docs name every subpath entry', () => {
    const docs = readFileSync('docs/library.md', 'utf8');
    const missing = Object.keys(pinned)
      .filter((subpath) => subpath !== '.')
      .filter((subpath) => !docs.includes(`toolgate/${subpath.slice(2)}`));
    assert.deepEqual(missing, []);
  });
});
