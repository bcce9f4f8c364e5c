// Public names are contracts: event types and error codes may grow, never change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES, RUN_EVENT_TYPES } from '../../src/core/index.ts';

describe('architecture: pinned public names', () => {
  it('keeps every event type named by the issues', () => {
    for (const name of [
      'run_started',
      'user_message',
      'assistant_delta',
      'assistant_message',
      'tool_call',
      'tool_result',
      'run_completed',
      'run_failed',
      'run_cancelled',
      'run_status',
      'gate_decision',
      'approval_required',
      'input_received',
      'tool_changed',
      'upstream_request',
      'upstream_log',
      'request_refused',
      'tool_mode_changed',
      'client_tool_calls',
      'replay_compared',
      'run_forked',
      'approval_notified',
      'approval_timed_out',
      'step_signal',
      'rollout_rolled_back',
    ]) {
      assert.ok((RUN_EVENT_TYPES as readonly string[]).includes(name), `event type ${name} is missing`);
    }
    assert.equal(new Set(RUN_EVENT_TYPES).size, RUN_EVENT_TYPES.length, 'duplicate event type');
  });

  it('keeps every error code named by the issues', () => {
    for (const code of [
      'max_steps',
      'unparseable_tool_call',
      'tool_timeout',
      'tool_error',
      'tool_unavailable',
      'invalid_arguments',
      'denied',
      'rejected',
      'cancelled',
      'idempotency_mismatch',
      'forbidden',
      'rate_limited',
      'link_expired',
    ]) {
      assert.ok((ERROR_CODES as readonly string[]).includes(code), `error code ${code} is missing`);
    }
    assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length, 'duplicate error code');
  });
});
