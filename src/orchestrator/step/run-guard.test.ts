import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuardLimits, RunSettings } from '../../core/index.ts';
import { settingsFrom } from '../run-agent.ts';
import { emptyConversation } from '../state/run-state.ts';
import { checkGuard, percentile } from './run-guard.ts';

const settings = (guard: GuardLimits): RunSettings => settingsFrom({ guard });

describe('the guard: tool latency p95 and conflicting evidence', () => {
  it('p95 is nearest-rank: a latency one of the calls had', () => {
    assert.equal(percentile([10, 20, 30, 40, 1000], 0.95), 1000);
    assert.equal(percentile([...Array.from({ length: 19 }, () => 10), 500], 0.95), 10);
    assert.equal(percentile([...Array.from({ length: 18 }, () => 10), 500, 500], 0.95), 500);
  });

  it('slow tools (p95 over the limit, once 5 calls ran) degrade the run, whatever onBreach says', () => {
    const state = emptyConversation('running');
    const limits = settings({ maxToolLatencyP95Ms: 100, onBreach: 'fail' });
    state.toolLatencies = [300, 300, 300, 300];
    assert.equal(checkGuard(state, limits), undefined, 'four calls say too little');
    state.toolLatencies.push(20);
    const trip = checkGuard(state, limits);
    assert.equal(trip?.code, 'tool_latency_p95');
    assert.equal(trip?.action, 'degrade');
    assert.equal(trip?.value, 300);
    assert.equal(trip?.limit, 100);
    assert.match(trip?.message ?? '', /guard\.maxToolLatencyP95Ms/);
    state.toolLatencies = [20, 20, 20, 20, 20];
    assert.equal(checkGuard(state, limits), undefined);
    assert.equal(
      checkGuard({ ...state, toolLatencies: [300, 300, 300, 300, 300] }, settings({})),
      undefined,
      'no limit',
    );
  });

  it('conflicting results (default 2) make the run plan again; again after that: the configured breach', () => {
    const state = emptyConversation('running');
    state.conflictsSincePlan = 1;
    assert.equal(checkGuard(state, settings({})), undefined);
    state.conflictsSincePlan = 2;
    const trip = checkGuard(state, settings({}));
    assert.deepEqual([trip?.code, trip?.action, trip?.limit, trip?.value], ['conflicting_evidence', 'replan', 2, 2]);
    state.conflictsReplanned = true;
    assert.equal(checkGuard(state, settings({}))?.action, 'fail');
    assert.equal(checkGuard(state, settings({ onBreach: 'degrade' }))?.action, 'degrade');
    assert.equal(checkGuard(state, settings({ maxConflicts: 0 })), undefined, '0 turns it off');
    assert.equal(checkGuard(state, settings({ maxConflicts: 3 })), undefined);
  });
});
