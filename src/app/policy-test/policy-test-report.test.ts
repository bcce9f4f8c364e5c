import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPolicyTestReport, type PolicyTestReport } from './policy-test-report.ts';

const REPORT: PolicyTestReport = {
  suite: 'policy-tests/suite.yaml',
  runs: [
    { id: 'run_a', changed: true, divergedAtStep: 2 },
    { id: 'run_b', changed: false, tenant: 'globex' },
  ],
  results: [
    { name: 'no new denials', kind: 'noNewDenials', passed: true, checked: 3, failures: [] },
    {
      name: 'large orders wait',
      kind: 'decision',
      passed: false,
      checked: 1,
      failures: [
        {
          runId: 'run_a',
          reason: 'allowed, expected approval_required',
          call: { toolCallId: 'c1', name: 'placeOrder', step: 1, arguments: { qty: 300, price: 50 } },
        },
      ],
    },
    { name: 'tenant globex never reaches fs/*', kind: 'never', passed: true, checked: 0, failures: [] },
    {
      name: 'answer unchanged',
      kind: 'answerUnchanged',
      passed: false,
      checked: 2,
      failures: [{ runId: 'run_a', reason: 'the answer changed: "a" → "b"' }],
    },
  ],
  passed: 2,
  failed: 2,
};

describe('renderPolicyTestReport', () => {
  it('a line per expectation, each failing run and call under it, the summary line last', () => {
    const text = renderPolicyTestReport(REPORT, { color: false });
    assert.equal(
      text,
      [
        'policy-tests/suite.yaml: 2 runs replayed, 1 changed',
        '  run_a: from step 2 on, the replay sent what the model never saw (a result or a decision changed): ' +
          'its recorded answers from there may not be what it would have said',
        '✓ no new denials (3 calls)',
        '✗ large orders wait (1 call)',
        '    run_a step 1 placeOrder {"qty":300,"price":50}: allowed, expected approval_required',
        '✓ tenant globex never reaches fs/* (no call matched: it checks nothing)',
        '✗ answer unchanged (2 runs)',
        '    run_a: the answer changed: "a" → "b"',
        'policy test: 2 passed, 2 failed',
        '',
      ].join('\n'),
    );
    assert.ok(!text.includes('\u001b['), 'no colours');
  });

  it('with colour, marks are painted and the summary line stays plain for CI logs', () => {
    const text = renderPolicyTestReport(REPORT, { color: true });
    assert.ok(text.includes('\u001b[32m✓\u001b[39m no new denials'), text);
    assert.ok(text.includes('\u001b[31m✗\u001b[39m large orders wait'), text);
    assert.match(text, /\npolicy test: 2 passed, 2 failed\n$/);
  });
});
