// Strategies reach tools only through the gate function the engine hands them:
// no strategy can import a tool source, the tool call path, or an adapter, so
// none can call a tool without parse → validate → gate → record.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const STRATEGIES = fileURLToPath(new URL('../../src/orchestrator/strategies/', import.meta.url));
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * What a strategy file may import: its siblings (the contract, strategy.ts, among
 * them), core, and the run's state. Never a file of the pass (step/): the types a
 * strategy sees of it are declared in the contract.
 */
const ALLOWED = [
  /^\.\/[a-z-]+\.ts$/,
  /^\.\.\/\.\.\/core\/index\.ts$/,
  /^\.\.\/state\/run-state\.ts$/,
  // Types only (checked below): what a gate call returns.
  /^\.\.\/(call\/)?execute-tool-call\.ts$/,
];

const files = globSync('**/*.ts', { cwd: STRATEGIES })
  .filter((f) => !f.endsWith('.test.ts'))
  .map((f) => join(STRATEGIES, f));

describe('architecture: the strategy seam', () => {
  it('finds the strategies (react at least)', () => {
    assert.ok(files.some((f) => basename(f) === 'react.ts'));
  });

  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    it(`${basename(file)} imports nothing that reaches a tool`, () => {
      for (const m of text.matchAll(IMPORT_RE)) {
        const spec = m[1] ?? m[2] ?? '';
        assert.ok(
          ALLOWED.some((re) => re.test(spec)),
          `${basename(file)} imports ${spec}: strategies get tools only through the gate function`,
        );
        const statement = m[0];
        if (/execute-tool-call|finish-turn|model-turn|run-guard|side-call/.test(spec)) {
          assert.match(
            statement,
            /^\s*(import|export) type\b/,
            `${basename(file)}: ${spec} only as types (\`import type\`), never its functions`,
          );
        }
      }
    });
    it(`${basename(file)} names no tool source and calls no tool directly`, () => {
      const code = withoutComments(text);
      assert.doesNotMatch(
        code,
        /\bToolSource\b|\bToolRegistry\b|\bMcpToolSource\b/,
        'no tool source type in a strategy',
      );
      assert.doesNotMatch(
        code,
        /\.callTool\s*\(|\bexecuteToolCall\b/,
        'tools are called through ctx.gate / ctx.finishTurn only',
      );
    });
  }

  it('the context a strategy gets has a gate and no tool source', () => {
    const contract = readFileSync(join(STRATEGIES, 'strategy.ts'), 'utf8');
    const body = /export interface StrategyContext \{([\s\S]*?)\n\}/.exec(contract)?.[1] ?? '';
    assert.match(body, /readonly gate: GateFn;/);
    assert.doesNotMatch(body, /ToolSource|tools\s*[:?]/, 'StrategyContext must not carry tools');
  });
});

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}
