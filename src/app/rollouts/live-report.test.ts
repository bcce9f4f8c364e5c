import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArmFigures } from '../../core/index.ts';
import { compareArms, renderLiveReport } from './live-report.ts';
import { normalCdf, twoProportionTest } from './two-proportion-test.ts';

const arm = (ended: number, failed: number, extra: Partial<ArmFigures> = {}): ArmFigures => ({
  ended,
  failed,
  ...(ended === 0 ? {} : { failureRate: failed / ended, completionRate: 1 - failed / ended }),
  toolLatencyMs: { count: 0 },
  ...extra,
});

describe('twoProportionTest', () => {
  it('matches the textbook values', () => {
    assert.ok(Math.abs(normalCdf(1.96) - 0.975) < 1e-4);
    assert.ok(Math.abs(normalCdf(-1) - 0.158655) < 1e-5);
    // 45/100 vs 30/100: z ≈ 2.191, p ≈ 0.0285.
    const test = twoProportionTest({ x: 45, n: 100 }, { x: 30, n: 100 });
    assert.ok(test !== undefined && Math.abs(test.z - 2.191) < 1e-3 && Math.abs(test.pValue - 0.0285) < 1e-3);
    assert.ok((twoProportionTest({ x: 3, n: 10 }, { x: 3, n: 10 })?.pValue ?? 0) > 0.9999, 'the same rates');
    assert.equal(twoProportionTest({ x: 0, n: 10 }, { x: 0, n: 10 }), undefined, 'no failure anywhere');
    assert.equal(twoProportionTest({ x: 1, n: 1 }, { x: 0, n: 0 }), undefined, 'an empty arm');
  });
});

describe('the eval --live report', () => {
  it('gives the differences treated − control, the p-value and the rollback', () => {
    const comparison = compareArms({
      name: 'router.live',
      treated: arm(20, 10, { avgCostUsd: 0.03, toolLatencyMs: { count: 5, p95: 300 } }),
      control: arm(20, 2, { avgCostUsd: 0.01, toolLatencyMs: { count: 5, p95: 100 } }),
      rolledBack: { at: '2026-01-01T00:00:00.000Z', failureRate: 0.5, threshold: 0.3 },
    });
    assert.ok(Math.abs((comparison.difference.failureRate ?? 0) - 0.4) < 1e-9);
    assert.ok(Math.abs((comparison.difference.avgCostUsd ?? 0) - 0.02) < 1e-9);
    assert.equal(comparison.difference.toolP95Ms, 200);
    assert.ok((comparison.test?.pValue ?? 1) < 0.01);
    const text = renderLiveReport({ windowMs: 3_600_000, since: 'a', until: 'b', rollouts: [comparison] });
    assert.match(text, /^rollouts over the last 60 min \(a – b\)/);
    assert.match(text, /router\.live\s+treated\s+20\s+50%\s+50%\s+\$0\.0300\s+300 ms/);
    assert.match(text, /control\s+20\s+90%\s+10%\s+\$0\.0100\s+100 ms/);
    assert.match(text, /difference\s+-40 pp\s+\+40 pp\s+\+\$0\.0200\s+\+200 ms/);
    assert.match(text, /p-value 0\.00\d: the chance of a failure-rate gap/);
    assert.match(text, /rolled back at 2026-01-01T00:00:00\.000Z: 50% of treated runs failed \(threshold 30%\)/);
    assert.match(renderLiveReport({ windowMs: 60_000, since: 'a', until: 'b', rollouts: [] }), /no rollout runs/);
  });
});
