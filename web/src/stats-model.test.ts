import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatsFigures, StatsRow, StatsSnapshot } from '../../src/core/stats.ts';
import {
  bucketTimes,
  emptyMessage,
  filterOptions,
  formatCounts,
  formatWindow,
  rowLines,
  strategyBars,
  totalsLines,
} from './stats-model.ts';

function figures(overrides: Partial<StatsFigures> = {}): StatsFigures {
  return {
    runs: { started: 0, completed: 0, failed: 0, cancelled: 0 },
    failures: {},
    guardTrips: {},
    approvals: { asked: 0, rejected: 0 },
    steps: 0,
    tokens: { input: 0, output: 0 },
    costUsd: 0,
    modelLatencyMs: { count: 0 },
    toolLatencyMs: { count: 0 },
    series: { completed: [0, 0, 0], failed: [0, 0, 0], toolP95Ms: [0, 0, 0] },
    ...overrides,
  };
}

function row(key: Partial<StatsRow>, overrides: Partial<StatsFigures> = {}): StatsRow {
  return { tenant: 'acme', intent: '-', strategy: 'react', model: 'scripted:./ok.json', ...figures(overrides), ...key };
}

function snapshot(rows: StatsRow[], totals: StatsFigures = figures()): StatsSnapshot {
  return {
    windowMs: 900_000,
    bucketMs: 300_000,
    since: '2026-11-26T10:00:00.000Z',
    until: '2026-11-26T10:15:00.000Z',
    rows,
    totals,
    rollouts: [],
  };
}

const ended = (completed: number, failed: number, cancelled = 0): Partial<StatsFigures> => ({
  runs: { started: completed + failed + cancelled, completed, failed, cancelled },
});

describe('stats view model', () => {
  it('fills the filters from the rows, keeps values seen before and the chosen one, sorted without repeats', () => {
    const first = filterOptions(
      snapshot([row({ tenant: 'globex', strategy: 'plan' }), row({ tenant: 'acme' }), row({ tenant: 'acme' })]),
    );
    assert.deepEqual(first, { tenant: ['acme', 'globex'], strategy: ['plan', 'react'], model: ['scripted:./ok.json'] });
    // Filtered to acme, the answer only holds acme's rows: globex stays offered.
    const narrowed = filterOptions(snapshot([row({ tenant: 'acme', model: 'm2' })]), {
      previous: first,
      choice: { tenant: 'acme', strategy: 'reflect', model: '' },
    });
    assert.deepEqual(narrowed.tenant, ['acme', 'globex']);
    assert.deepEqual(narrowed.strategy, ['plan', 'react', 'reflect']);
    assert.deepEqual(narrowed.model, ['m2', 'scripted:./ok.json']);
  });

  it('an empty window says so in words, naming the window; a window with any run does not', () => {
    assert.equal(emptyMessage(snapshot([])), 'No runs in the last 15 minutes.');
    assert.equal(emptyMessage({ ...snapshot([]), windowMs: 60_000 }), 'No runs in the last minute.');
    assert.equal(emptyMessage({ ...snapshot([]), windowMs: 3 * 3_600_000 }), 'No runs in the last 3 hours.');
    assert.equal(
      emptyMessage(snapshot([row({})], figures({ runs: { started: 1, completed: 0, failed: 0, cancelled: 0 } }))),
      undefined,
    );
    assert.equal(formatWindow(30_000), '30 seconds');
    assert.equal(formatWindow(90 * 60_000), '90 minutes');
  });

  it('lists the totals with their raw values and the text shown', () => {
    const lines = totalsLines(
      figures({
        ...ended(3, 1),
        completionRate: 0.75,
        failures: { model_error: 1 },
        guardTrips: { max_steps: 2, budget: 2, cost: 0 },
        approvals: { asked: 4, rejected: 1 },
        steps: 9,
        tokens: { input: 1200, output: 340 },
        costUsd: 0.0042,
        modelLatencyMs: { count: 9, p50: 120, p95: 1540 },
        toolLatencyMs: { count: 0 },
      }),
    );
    const by = new Map(lines.map((l) => [l.name, l]));
    assert.deepEqual(
      lines.map((l) => l.name),
      [
        'runs',
        'completion-rate',
        'failures',
        'guard-trips',
        'approvals',
        'steps',
        'tokens',
        'cost',
        'model-latency',
        'tool-latency',
      ],
    );
    assert.equal(by.get('runs')?.text, '4 started · 3 completed · 1 failed · 0 cancelled');
    assert.equal(by.get('runs')?.value, 4);
    assert.equal(by.get('completion-rate')?.text, '75.0%');
    assert.equal(by.get('completion-rate')?.value, 0.75);
    assert.equal(by.get('failures')?.text, 'model_error 1');
    assert.equal(by.get('guard-trips')?.text, 'budget 2, max_steps 2', 'most first, then by name; zeros left out');
    assert.equal(by.get('approvals')?.text, '4 asked · 1 rejected');
    assert.equal(by.get('tokens')?.text, '1200 in · 340 out');
    assert.equal(by.get('cost')?.text, '$0.0042');
    assert.equal(by.get('model-latency')?.text, 'p50 120 ms · p95 1.54 s (9 calls)');
    assert.equal(by.get('tool-latency')?.text, 'no calls');
    const none = totalsLines(figures());
    assert.equal(none.find((l) => l.name === 'completion-rate')?.text, '—');
    assert.equal(none.find((l) => l.name === 'completion-rate')?.value, undefined);
    assert.equal(formatCounts({}), 'none');
  });

  it('gives each row its sparkline series on the window buckets, most runs first', () => {
    const snap = snapshot([
      row({ strategy: 'plan' }, { ...ended(1, 0), series: { completed: [0, 0, 1], failed: [0, 0, 0], toolP95Ms: [] } }),
      row(
        { strategy: 'react' },
        {
          ...ended(2, 1),
          completionRate: 2 / 3,
          toolLatencyMs: { count: 4, p50: 40, p95: 250 },
          costUsd: 0.5,
          series: { completed: [1, 0, 1], failed: [0, 1, 0], toolP95Ms: [250, 0, 90] },
        },
      ),
    ]);
    const lines = rowLines(snap);
    assert.deepEqual(
      lines.map((l) => l.key),
      ['acme · - · react · scripted:./ok.json', 'acme · - · plan · scripted:./ok.json'],
    );
    const [react] = lines;
    assert.deepEqual(react?.cells, {
      ended: 3,
      completionRate: '66.7%',
      failed: 1,
      toolP95: '250 ms',
      costUsd: '$0.50',
    });
    const x = bucketTimes(snap, 3);
    assert.deepEqual(x, [
      Date.parse('2026-11-26T10:00:00.000Z') / 1000,
      Date.parse('2026-11-26T10:05:00.000Z') / 1000,
      Date.parse('2026-11-26T10:10:00.000Z') / 1000,
    ]);
    assert.deepEqual(react?.outcomes, [x, [1, 0, 1], [0, 1, 0]]);
    assert.deepEqual(react?.toolP95, [x, [250, 0, 90]]);
    assert.deepEqual(lines[1]?.toolP95, [[], []], 'a series of no buckets is an empty chart, not a broken one');
  });

  it('bars: completion rate per strategy over its rows, the highest tool p95 of its rows', () => {
    const bars = strategyBars(
      snapshot([
        row({ strategy: 'react', model: 'a' }, { ...ended(3, 1), toolLatencyMs: { count: 3, p95: 100 } }),
        row({ strategy: 'react', model: 'b' }, { ...ended(1, 3), toolLatencyMs: { count: 1, p95: 400 } }),
        row({ strategy: 'auto' }, ended(0, 0)),
        row({ strategy: 'plan' }, ended(2, 0)),
      ]),
    );
    assert.deepEqual(bars, {
      strategies: ['auto', 'plan', 'react'],
      completionPercent: [null, 100, 50],
      toolP95Ms: [null, null, 400],
    });
  });
});
