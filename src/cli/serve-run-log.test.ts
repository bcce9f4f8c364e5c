import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { Run, RunEvent, RunEventDataMap, RunEventType } from '../core/index.ts';
import { approvalCurl, authHeader, createRunLog } from './serve-run-log.ts';

const RUN: Run = {
  id: 'run_1',
  status: 'completed',
  input: 'secret plans',
  model: 'scripted:demo',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.500Z',
  tenantId: 'acme',
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  steps: 3,
  lastEventId: 9,
};

function ev<K extends RunEventType>(type: K, data: RunEventDataMap[K], time = '2026-01-01T00:00:01.500Z'): RunEvent {
  return { id: 1, runId: 'run_1', type, time, data } as RunEvent;
}

describe('serve run log', () => {
  it('the approval curl line: ready to paste, with a key placeholder only when keys are configured', () => {
    const open = approvalCurl({
      baseUrl: 'http://127.0.0.1:8787',
      runId: 'run_1',
      toolCallId: 'call_1',
      hasApiKeys: false,
    });
    assert.equal(
      open,
      `curl -X POST http://127.0.0.1:8787/v1/runs/run_1/input -H 'content-type: ` +
        `application/json' -d '{"type":"approval","toolCallId":"call_1","decision":"approve"}'`,
    );
    const keyed = approvalCurl({ baseUrl: 'http://h', runId: 'run_1', toolCallId: 'call_1', hasApiKeys: true });
    assert.match(keyed, / -H "authorization: Bearer \$TOOLGATE_API_KEY" -d /);
    assert.equal(authHeader(false), '');
  });

  it('one line per start, approval and end, with ids, counts and durations but no input or arguments', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info', base: null },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const log = createRunLog({
      logger,
      store: { getRun: () => Promise.resolve(RUN) },
      baseUrl: () => 'http://h',
      hasApiKeys: true,
    });
    log([ev('run_started', { input: 'secret plans', model: 'scripted:demo', tools: [], maxSteps: 5 })]);
    log([
      ev('approval_required', {
        step: 2,
        toolCallId: 'call_7',
        name: 'placeOrder',
        arguments: { qty: 7000 },
        effect: 'write',
        reason: 'policy',
      }),
    ]);
    log([ev('run_completed', { output: 'done', usage: RUN.usage, steps: 3 })]);
    await new Promise((resolve) => setImmediate(resolve));
    const byMsg = new Map(lines.map((l) => [l['msg'], l]));
    assert.deepEqual(byMsg.get('run started'), {
      level: 30,
      time: byMsg.get('run started')?.['time'],
      runId: 'run_1',
      tenantId: 'acme',
      model: 'scripted:demo',
      msg: 'run started',
    });
    const waiting = byMsg.get('run waits for approval');
    assert.equal(waiting?.['tool'], 'placeOrder');
    assert.match(String(waiting?.['curl']), /\/v1\/runs\/run_1\/input .*"toolCallId":"call_7"/);
    const ended = byMsg.get('run completed');
    assert.deepEqual(
      [ended?.['status'], ended?.['steps'], ended?.['durationMs'], ended?.['tenantId']],
      ['completed', 3, 1500, 'acme'],
    );
    const text = JSON.stringify(lines);
    assert.doesNotMatch(text, /secret plans|7000/);
  });
});
