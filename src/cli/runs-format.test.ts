import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Run } from '../core/index.ts';
import { formatRun, formatRunList } from './runs-format.ts';

const run: Run = {
  id: 'run_a',
  status: 'waiting_approval',
  input: 'Buy 1 MWh\nfor bob',
  model: 'openai:m',
  createdAt: '2026-01-02T03:04:05.678Z',
  updatedAt: '2026-01-02T03:04:06.000Z',
  usage: { promptTokens: 1000, completionTokens: 234, totalTokens: 1234 },
  steps: 1,
  lastEventId: 9,
  pendingApproval: {
    toolCallId: 'call_1',
    name: 'placeOrder',
    arguments: { qty: 1 },
    effect: 'write',
    reason: 'policy',
    eventId: 9,
  },
};

describe('runs list and show, for people', () => {
  it('lists one aligned line per run with the call a run waits on', () => {
    const text = formatRunList([
      {
        id: 'run_a',
        status: 'waiting_approval',
        createdAt: run.createdAt,
        steps: 1,
        model: 'openai:m',
        input: run.input,
        pendingApproval: { name: 'placeOrder' },
      },
      {
        id: 'run_bb',
        status: 'completed',
        createdAt: run.createdAt,
        steps: 12,
        model: 'scripted:x.json',
        input: 'x'.repeat(100),
      },
    ]);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0] ?? '', /^ID +STATUS +CREATED \(UTC\) +STEPS +MODEL +INPUT$/);
    assert.match(
      lines[1] ?? '',
      /^run_a +waiting_approval \(placeOrder\) +2026-01-02 03:04:05 +1 +openai:m +Buy 1 MWh for bob$/,
    );
    assert.match(lines[2] ?? '', /x…$/);
    assert.equal(lines[1]?.indexOf('openai:m'), lines[2]?.indexOf('scripted:'));
  });

  it('shows status, model, usage, input, and the pending call with its arguments and how to decide', () => {
    const text = formatRun({ run, resume: ' --url http://h:1' });
    assert.match(text, /^run run_a$/m);
    assert.match(text, /status +waiting_approval/);
    assert.match(text, /steps +1 · 1,234 tokens \(1000 in, 234 out\)/);
    const estimated = formatRun({ run: { ...run, usage: { ...run.usage, estimated: true } }, resume: '' });
    assert.match(estimated, /steps +1 · ~1,234 tokens \(estimated: 1000 in, 234 out\)/);
    assert.match(text, /input +Buy 1 MWh\n {11}for bob/);
    assert.match(text, /waits for approval: placeOrder \(write\)\n {2}why +the policy asks a person/);
    assert.match(text, /args +\{"qty":1\}/);
    assert.match(text, /toolgate runs approve run_a --url http:\/\/h:1/);
    const done = formatRun({
      run: { ...run, status: 'failed', error: { code: 'max_steps', message: 'too many' }, output: 'partial' },
      resume: '',
    });
    assert.match(done, /answer +partial/);
    assert.match(done, /error +max_steps: too many/);
    assert.doesNotMatch(done, /waits for approval/);
  });
});
