// The style figures as rules (scripts/code-figures.ts measures them): no import circles,
// type-only imports included; the orchestrator's floors import only downwards; no line
// over the formatter's width; no function with more than three positional parameters;
// type assertions kept under a ceiling that only goes down.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { importCircles, measure, PRINT_WIDTH, sourceFiles } from '../../scripts/code-figures.ts';

/** `as` casts in src/ (non-test, `as const` not counted): lower it when the count goes down. */
const MAX_AS_CASTS = 120;

/**
 * The orchestrator as a stack (docs/architecture.md), top first: a file imports only
 * files of its own floor or of floors below it.
 */
const ORCHESTRATOR_FLOORS = ['.', 'step', 'strategies', 'call', 'log', 'state'] as const;

const figures = measure();

function floorOf(file: string): number | undefined {
  const rel = relative(join('src', 'orchestrator'), dirname(file));
  if (rel.startsWith('..')) return undefined;
  return ORCHESTRATOR_FLOORS.indexOf((rel === '' ? '.' : rel.split(sep)[0]) as (typeof ORCHESTRATOR_FLOORS)[number]);
}

describe('architecture: code figures', () => {
  it('the circle finder finds a circle, a self-import, and nothing in a chain', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['f']],
      ['f', []],
    ]);
    assert.deepEqual(importCircles(graph), [['a', 'b', 'c'], ['d']]);
  });

  it('has no import circles in src/ (type-only imports count)', () => {
    assert.deepEqual(figures.circles, []);
  });

  it('the orchestrator has exactly its floors, and each file imports only its floor or floors below', () => {
    assert.deepEqual([...figures.orchestratorFloors].sort(), [...ORCHESTRATOR_FLOORS].sort());
    const upward: string[] = [];
    for (const [file, targets] of figures.imports) {
      const from = floorOf(file);
      if (from === undefined) continue;
      assert.notEqual(from, -1, `${file} is on no floor of ${ORCHESTRATOR_FLOORS.join(', ')}`);
      for (const target of targets) {
        const to = floorOf(target);
        if (to !== undefined && to < from) upward.push(`${file} → ${target}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it(`no line is longer than the formatter's width (${PRINT_WIDTH})`, () => {
    assert.deepEqual(figures.longLines, []);
  });

  it("no function in src/ takes more than three positional parameters, but the RunStore port's append", () => {
    // RunStore.append(runId, drafts, patch, options) is a public port (src/core/ports/run-store.ts): its
    // implementations keep its signature. Every other function takes an options object beyond three.
    const PORT_METHODS = new Set([
      'src/store/memory/memory-run-store.ts append',
      'src/store/sqlite/sqlite-run-store.ts append',
      'src/store/postgres/postgres-run-store.ts append',
    ]);
    const offenders = figures.manyParams.filter(
      (place) => !PORT_METHODS.has(place.replace(/:\d+ /, ' ').split(sep).join('/')),
    );
    assert.deepEqual(offenders, []);
  });

  it(`src/ holds at most ${MAX_AS_CASTS} type assertions`, () => {
    assert.ok(
      figures.asCasts <= MAX_AS_CASTS,
      `${figures.asCasts} \`as\` casts in src/; narrow with a type guard instead`,
    );
  });

  it('has one describeError, one ToolEffect and one canonical JSON', () => {
    const rules: { pattern: RegExp; home: string; what: string }[] = [
      {
        pattern: /instanceof Error \? \(?\w+\.(?:message|stack)/,
        home: join('src', 'core', 'describe-error.ts'),
        what: 'an error described in place (use describeError)',
      },
      {
        pattern: /'read' \| 'write'|'write' \| 'read'/,
        home: join('src', 'core', 'events.ts'),
        what: "'read' | 'write' spelled out (use ToolEffect)",
      },
      {
        pattern: /\.sort\(\)[\s\S]{0,120}JSON\.stringify\(key\)|function stableStringify/,
        home: join('src', 'core', 'canonical-json.ts'),
        what: 'a second sorted-keys JSON (use canonicalJson)',
      },
    ];
    const found: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const rule of rules) if (file !== rule.home && rule.pattern.test(text)) found.push(`${file}: ${rule.what}`);
    }
    assert.deepEqual(found, []);
  });
});
