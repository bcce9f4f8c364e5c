// Human output of run events: what the gate did to each call, shown once, under the call's line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent, RunEventDataMap, RunEventType } from '../core/index.ts';
import type { CliIO } from './cli-io.ts';
import { createEventPrinter, gateDecisionLines } from './event-printer.ts';

let seq = 0;
function ev<K extends RunEventType>(type: K, data: RunEventDataMap[K]): RunEvent {
  return { id: ++seq, runId: 'run_1', type, time: '2026-01-01T00:00:00.000Z', data } as RunEvent;
}

function capture(): { io: CliIO; err: () => string; out: () => string } {
  let err = '';
  let out = '';
  return {
    io: {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      env: {},
      cwd: '.',
    },
    err: () => err,
    out: () => out,
  };
}

const ORDER = { userId: 'alice', side: 'BUY', qty: 7000, price: 85 };
const MESSY_GATE: RunEventDataMap['gate_decision'] = {
  step: 2,
  toolCallId: 'c1',
  name: 'placeOrder',
  effect: 'write',
  decision: 'approval_required',
  normalisations: [
    { path: '/side', from: 'buy', to: 'BUY', rule: 'enum_case' },
    { path: '/qty', from: '7,000', to: 7000, rule: 'number_from_string' },
  ],
  injected: [{ key: 'userId', overridden: true }],
};

describe('event printer: what the gate did', () => {
  it('phrases normalisations, dropped values and injected keys, never an injected value', () => {
    assert.deepEqual(gateDecisionLines(MESSY_GATE), [
      '  normalised side "buy" → "BUY", qty "7,000" → 7000',
      "  injected server-side: userId (replacing the model's value)",
    ]);
    const other = gateDecisionLines({
      ...MESSY_GATE,
      normalisations: [{ path: '/legs/0/a~1b', from: null, rule: 'drop_null_optional' }],
      injected: [
        { key: 'token', overridden: false },
        { key: 'account', overridden: false },
      ],
    });
    assert.deepEqual(other, ['  normalised dropped legs.0.a/b (null)', '  injected server-side: token, account']);
    assert.deepEqual(gateDecisionLines({ ...MESSY_GATE, normalisations: [], injected: [] }), []);
  });

  it('notifications, a timeout and a decision from a link print under the waiting call', () => {
    const { io, err } = capture();
    const printer = createEventPrinter({ io, json: false });
    printer.print(
      ev('approval_required', {
        step: 1,
        toolCallId: 'c1',
        name: 'placeOrder',
        arguments: ORDER,
        effect: 'write',
        reason: 'policy',
      }),
    );
    const notified = { toolCallId: 'c1', target: 'managers', round: 'first', deliveryId: 'd1' } as const;
    printer.print(ev('approval_notified', { ...notified, outcome: 'delivered', attempts: 1 }));
    const failures = [{ attempt: 5, status: 500, error: 'HTTP 500' }];
    printer.print(ev('approval_notified', { ...notified, target: 'desk', outcome: 'failed', attempts: 5, failures }));
    printer.print(ev('approval_timed_out', { toolCallId: 'c1', action: 'escalate', waitedMs: 600_000, round: 1 }));
    const source = { via: 'chat', target: 'managers', linkId: 'l1', actor: 'U123' } as const;
    printer.print(
      ev('input_received', { input: { type: 'approval', toolCallId: 'c1', decision: 'reject', source, reason: 'no' } }),
    );
    assert.deepEqual(err().split('\n').slice(1), [
      '  placeOrder: notified managers (delivered)',
      '  placeOrder: notifying desk failed after 5 attempts: HTTP 500',
      '  placeOrder: timed out after 10 min → escalated',
      '  decision on placeOrder: reject via chat (managers) by U123: no',
      '',
    ]);
  });

  it('gateway sessions: a refused request, and an upstream log message on one line without control characters', () => {
    const { io, err } = capture();
    const printer = createEventPrinter({ io, json: false });
    printer.print(ev('request_refused', { method: 'resources/read', code: 'rate_limited', reason: '2 per 60 s' }));
    printer.print(ev('upstream_log', { server: 'px', level: 'warning', logger: 'feed', data: 'late\n\u001b[2Jtick' }));
    printer.print(ev('upstream_log', { server: 'px', level: 'info', data: { n: 1 }, dropped: 3 }));
    assert.deepEqual(err().split('\n'), [
      '⚠ resources/read refused (rate_limited): 2 per 60 s',
      '  px log [warning] feed: late  [2Jtick',
      '  px log [info]: {"n":1} (3 more not recorded)',
      '',
    ]);
  });

  it('a call that waits: ⏸ with the reason, then the gate lines once, the decision, and the call when it runs', () => {
    const { io, err } = capture();
    const printer = createEventPrinter({ io, json: false });
    printer.print(ev('gate_decision', MESSY_GATE));
    assert.equal(err(), '', 'nothing before the line that introduces the call');
    printer.print(
      ev('approval_required', {
        step: 2,
        toolCallId: 'c1',
        name: 'placeOrder',
        arguments: ORDER,
        effect: 'write',
        reason: 'policy',
      }),
    );
    printer.print(
      ev('input_received', { input: { type: 'approval', toolCallId: 'c1', decision: 'approve', userId: 'cli' } }),
    );
    // After the decision the gate decides again: same normalisations, not repeated.
    printer.print(ev('gate_decision', { ...MESSY_GATE, decision: 'allowed' }));
    printer.print(ev('tool_call', { step: 2, toolCallId: 'c1', name: 'placeOrder', arguments: ORDER }));
    printer.print(
      ev('tool_result', {
        step: 2,
        toolCallId: 'c1',
        name: 'placeOrder',
        ok: true,
        content: [{ type: 'text', text: 'Order ord-8 accepted' }],
        latencyMs: 4,
      }),
    );
    assert.deepEqual(err().split('\n'), [
      '⏸ placeOrder (write) waits for approval: the policy asks a person',
      '  normalised side "buy" → "BUY", qty "7,000" → 7000',
      "  injected server-side: userId (replacing the model's value)",
      '  decision on placeOrder: approve (by cli)',
      `→ placeOrder(${JSON.stringify(ORDER)})`,
      '← placeOrder ok 4 ms: Order ord-8 accepted',
      '',
    ]);
  });

  it('a dry run: announced at the start; ⊘ with the validated arguments, then the result', () => {
    const { io, err } = capture();
    const printer = createEventPrinter({ io, json: false });
    printer.print(ev('run_started', { input: 'x', model: 'scripted:x', tools: [], maxSteps: 5, dryRun: true }));
    printer.print(ev('gate_decision', { ...MESSY_GATE, decision: 'dry_run' }));
    printer.print(
      ev('tool_result', {
        step: 2,
        toolCallId: 'c1',
        name: 'placeOrder',
        ok: true,
        content: [{ type: 'text', text: 'DRY RUN: placeOrder was validated …' }],
        structuredContent: { dryRun: true, tool: 'placeOrder', arguments: ORDER },
        latencyMs: 0.3,
        dryRun: true,
      }),
    );
    const lines = err().split('\n');
    assert.match(lines[0] ?? '', /^⊘ dry run: reads execute; writes are validated and previewed/);
    assert.equal(lines[1], `⊘ dry run: placeOrder would be called with ${JSON.stringify(ORDER)}; nothing executed`);
    assert.equal(lines[2], '  normalised side "buy" → "BUY", qty "7,000" → 7000');
    assert.match(lines[4] ?? '', /^← placeOrder ok 0\.3 ms: DRY RUN/);
  });

  it('tool servers that were down when the run started are named with their cause', () => {
    const { io, err } = capture();
    const printer = createEventPrinter({ io, json: false });
    const reason =
      'could not start MCP server "crm" (node crm.js): the server ' +
      "exited before answering: Error: Cannot find module '/srv/crm.js'";
    printer.print(
      ev('run_started', {
        input: 'x',
        model: 'scripted:x',
        tools: ['quote'],
        maxSteps: 5,
        unavailable: [{ server: 'crm', reason, tools: [] }],
      }),
    );
    assert.equal(err(), `⚠ tool server "crm" is unavailable, its tools are left out: ${reason}\n`);
  });

  it('a refused call shows what the gate changed before its error; other approval reasons are explained', () => {
    const { io, err } = capture();
    const printer = createEventPrinter({ io, json: false });
    printer.print(ev('gate_decision', { ...MESSY_GATE, toolCallId: 'c2', decision: 'denied', injected: [] }));
    printer.print(
      ev('tool_result', {
        step: 2,
        toolCallId: 'c2',
        name: 'placeOrder',
        ok: false,
        content: [],
        error: { code: 'rejected', message: 'too big' },
        latencyMs: 1,
      }),
    );
    printer.print(
      ev('approval_required', {
        step: 3,
        toolCallId: 'c3',
        name: 'send',
        arguments: {},
        effect: 'write',
        reason: 'untrusted_output',
        provenance: [{ toolCallId: 'w', name: 'fetch', step: 1 }],
      }),
    );
    printer.print(
      ev('approval_required', {
        step: 3,
        toolCallId: 'c4',
        name: 'pay',
        arguments: {},
        effect: 'write',
        reason: 'outcome_unknown',
        detail: 'no answer within 5000 ms',
      }),
    );
    const lines = err().split('\n');
    assert.equal(lines[0], '  normalised side "buy" → "BUY", qty "7,000" → 7000');
    assert.equal(lines[1], '← placeOrder rejected: too big');
    assert.equal(lines[2], '⏸ send (write) waits for approval: it follows untrusted output (fetch)');
    assert.equal(
      lines[3],
      '⏸ pay (write) waits for approval: it was sent and its outcome is unknown (no answer within 5000 ms)',
    );
  });

  it('JSON mode prints every event as stored, gate decisions included', () => {
    const { io, out, err } = capture();
    const printer = createEventPrinter({ io, json: true });
    const event = ev('gate_decision', MESSY_GATE);
    printer.print(event);
    assert.deepEqual(JSON.parse(out()), event);
    assert.equal(err(), '');
  });
});
