// `toolgate --help`, a typo and `toolgate <command> --help` answer without
// loading models, tools, stores or the HTTP server: main.ts reaches the
// commands' implementations only through dynamic import(). This walks the
// static imports from main.ts and fails if one of them pulls in the heavy parts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const STATIC_IMPORT_RE =
  /(?:^|\n)\s*(?:import|export)\s(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop() ?? '';
    if (files.has(file)) continue;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? '';
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (existsSync(target)) queue.push(target);
      } else if (!spec.startsWith('node:')) {
        packages.add(spec);
      }
    }
  }
  return { files, packages };
}

test('the CLI entry statically imports only specs, small helpers and core; commands load on demand', () => {
  const { files, packages } = staticClosure(join('src', 'cli', 'main.ts'));
  const rel = [...files].map((f) => relative(process.cwd(), f).replaceAll('\\', '/'));
  const heavy = rel.filter(
    (f) =>
      /^src\/(app|orchestrator|tools|store|server|providers|parsing|validation|gate|config)\//.test(f) ||
      /-command\.ts$/.test(f),
  );
  assert.deepEqual(heavy, [], `main.ts loads these at start: ${heavy.join(', ')}`);
  assert.deepEqual([...packages], [], 'no npm package is loaded before a command runs');
  assert.ok(
    rel.includes('src/cli/commands.ts') && rel.some((f) => f.startsWith('src/cli/specs/')),
    'the walk follows imports',
  );
});

test('bin/toolgate.js answers --version from package.json, before any import of the CLI', () => {
  const bin = readFileSync(join('bin', 'toolgate.js'), 'utf8');
  const version = bin.indexOf("args[0] === '--version'");
  const load = bin.indexOf('await import(');
  assert.ok(version > 0 && load > version, 'the --version branch comes before the CLI is imported');
  assert.doesNotMatch(bin.slice(0, load), /^import .*src\//m);
});
