// Package hygiene: every runtime dependency is used by the shipped code, and
// `engines` states the same minimum Node as the version check in bin/.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
  engines: { node: string };
};
const SHIPPED = ['src/**/*.ts', 'examples/power-exchange/**/*.ts', 'bin/*.js'];

test('every runtime dependency is imported by code the package ships', () => {
  const sources = SHIPPED.flatMap((pattern) => globSync(pattern))
    .filter((f) => !f.includes('.test.') && !/(^|\/)test-[^/]*$/.test(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  // A declarations package (`@types/pg`) is a runtime dependency when the shipped declarations name its
  // module: a TypeScript user of `toolgate/store/postgres` needs it to compile.
  const imported = (name: string): boolean =>
    new RegExp(`(from|import\\(|require\\()\\s*['"]${name.replace(/[/.]/g, '\\$&')}(/[^'"]*)?['"]`).test(sources);
  const unused = Object.keys(pkg.dependencies).filter((name) =>
    name.startsWith('@types/') ? !imported(name.slice('@types/'.length)) : !imported(name),
  );
  assert.deepEqual(unused, [], 'remove unused dependencies from package.json (or move them to devDependencies)');
});

test('engines.node is the minimum bin/check-node.js enforces', async () => {
  // bin/ is plain JavaScript without declarations: imported through a variable, typed here.
  const checkNode = '../../bin/check-node.js';
  const { MIN_NODE } = (await import(checkNode)) as { MIN_NODE: number[] };
  assert.equal(pkg.engines.node, `>=${MIN_NODE.join('.')}`);
});
