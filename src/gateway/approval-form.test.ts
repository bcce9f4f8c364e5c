import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  APPROVAL_INPUT_KEY,
  approvalForm,
  readApprovalAnswer,
  type FormAnswer,
  type HeldCall,
} from './approval-form.ts';

const HELD: HeldCall = {
  toolCallId: 'call_abc',
  name: 'placeOrder',
  arguments: { side: 'BUY', qty: 2, note: 'é 😀' },
  effect: 'write',
  reason: 'policy',
  runId: 'run_xyz',
};
const CTX = { toolCallId: 'call_abc', userId: 'u-1' };

interface FormSchema {
  type: string;
  required: string[];
  properties: {
    decision: { type: string; enum: string[]; enumNames: string[] };
    arguments: { type: string; default: string };
    reason: { type: string };
  };
}

function accept(content: Record<string, unknown>): FormAnswer {
  return readApprovalAnswer({ action: 'accept', content }, CTX);
}

function problemOf(answer: FormAnswer): string {
  assert.equal(answer.kind, 'invalid');
  return answer.kind === 'invalid' ? answer.problem : '';
}

describe('approvalForm', () => {
  it('names the tool, its effect, the arguments and the run and call ids', () => {
    const { message } = approvalForm(HELD);
    assert.match(
      message,
      new RegExp(
        String.raw`toolgate holds a call to placeOrder \(changes state\) fo` +
          String.raw`r your approval: the policy asks a person for this tool\.`,
      ),
    );
    assert.ok(message.includes(JSON.stringify(HELD.arguments, null, 2)), 'the arguments, pretty-printed');
    assert.ok(message.endsWith('(run run_xyz, call call_abc)'));
    assert.equal(APPROVAL_INPUT_KEY, 'toolgate_approval');
  });

  it('says why: untrusted output, and a read', () => {
    const { message } = approvalForm({ ...HELD, effect: 'read', reason: 'untrusted_output' });
    assert.match(message, /placeOrder \(reads\) for your approval: it follows untrusted tool output\./);
  });

  it('puts the problem with a previous answer first', () => {
    const problem = 'The edited arguments are not valid JSON: fix them.';
    const { message } = approvalForm(HELD, problem);
    assert.ok(message.startsWith(`${problem}\n\n`));
    assert.ok(!approvalForm(HELD).message.includes(problem));
  });

  it('asks for a decision (required), optional edited arguments that default to the call’s own, and a reason', () => {
    const schema = approvalForm(HELD).requestedSchema as unknown as FormSchema;
    assert.equal(schema.type, 'object');
    assert.deepEqual(schema.required, ['decision']);
    assert.deepEqual(schema.properties.decision.enum, ['approve', 'reject', 'edit']);
    assert.equal(schema.properties.decision.enumNames.length, 3);
    assert.equal(schema.properties.arguments.type, 'string');
    assert.equal(schema.properties.arguments.default, JSON.stringify(HELD.arguments));
    assert.deepEqual(JSON.parse(schema.properties.arguments.default), HELD.arguments);
    assert.equal(schema.properties.reason.type, 'string');
  });
});

describe('readApprovalAnswer', () => {
  it('accept + approve or reject: that decision, for the call, by the user', () => {
    assert.deepEqual(accept({ decision: 'approve' }), {
      kind: 'decision',
      input: { type: 'approval', toolCallId: 'call_abc', userId: 'u-1', decision: 'approve' },
    });
    assert.deepEqual(accept({ decision: 'reject' }), {
      kind: 'decision',
      input: { type: 'approval', toolCallId: 'call_abc', userId: 'u-1', decision: 'reject' },
    });
  });

  it('records the reason trimmed; a blank reason is no reason', () => {
    assert.deepEqual(accept({ decision: 'reject', reason: '  too large  ' }), {
      kind: 'decision',
      input: { type: 'approval', toolCallId: 'call_abc', userId: 'u-1', decision: 'reject', reason: 'too large' },
    });
    const blank = accept({ decision: 'approve', reason: '   ' });
    assert.equal(blank.kind === 'decision' && 'reason' in blank.input, false);
    const long = accept({ decision: 'approve', reason: 'r'.repeat(5_000) });
    assert.equal(
      long.kind === 'decision' ? long.input.reason?.length : 0,
      2_000,
      'a reason is kept to 2000 characters',
    );
    const notText = accept({ decision: 'approve', reason: 42 });
    assert.equal(notText.kind === 'decision' && 'reason' in notText.input, false);
  });

  it('leaves userId out when the session has none', () => {
    const answer = readApprovalAnswer(
      { action: 'accept', content: { decision: 'approve' } },
      { toolCallId: 'call_abc' },
    );
    assert.deepEqual(answer, {
      kind: 'decision',
      input: { type: 'approval', toolCallId: 'call_abc', decision: 'approve' },
    });
  });

  it('accept + edit with a JSON object: an edit with those arguments (and the reason)', () => {
    assert.deepEqual(accept({ decision: 'edit', arguments: '{"side":"SELL","qty":1}', reason: 'half' }), {
      kind: 'decision',
      input: {
        type: 'approval',
        toolCallId: 'call_abc',
        userId: 'u-1',
        decision: 'edit',
        reason: 'half',
        arguments: { side: 'SELL', qty: 1 },
      },
    });
    const spaced = accept({ decision: 'edit', arguments: ' \n{ "a": [1, {"b": null}] }\n' });
    assert.deepEqual(spaced.kind === 'decision' ? spaced.input.arguments : undefined, { a: [1, { b: null }] });
  });

  it('an edit that is not valid JSON asks again, saying what is wrong and what to do', () => {
    const problem = problemOf(accept({ decision: 'edit', arguments: '{"side": "SELL",' }));
    assert.match(problem, /^The edited arguments are not valid JSON \(.+\): fix them, or approve or reject\.$/);
  });

  it('an edit that is JSON but not an object asks again', () => {
    for (const raw of ['[1,2]', '"SELL"', '42', 'null', 'true']) {
      assert.equal(
        problemOf(accept({ decision: 'edit', arguments: raw })),
        'The edited arguments must be a JSON object ({"name": value, …}): fix them, or approve or reject.',
        raw,
      );
    }
  });

  it('an edit without arguments as text asks for them', () => {
    for (const content of [
      { decision: 'edit' },
      { decision: 'edit', arguments: { side: 'SELL' } },
      { decision: 'edit', arguments: null },
    ]) {
      assert.equal(problemOf(accept(content)), 'With "edit", give the new arguments as a JSON object.');
    }
  });

  it('an unknown or missing decision asks again, quoting it', () => {
    assert.equal(
      problemOf(accept({ decision: 'maybe' })),
      'The decision must be approve, reject or edit (got "maybe").',
    );
    assert.equal(
      problemOf(accept({ decision: 'mark_done' })),
      'The decision must be approve, reject or edit (got "mark_done").',
      'mark_done is not for held calls',
    );
    assert.match(problemOf(accept({})), /\(got undefined\)/);
    assert.match(problemOf(readApprovalAnswer({ action: 'accept' }, CTX)), /\(got undefined\)/, 'no content at all');
  });

  it('decline rejects the call, saying it was declined in the client', () => {
    assert.deepEqual(readApprovalAnswer({ action: 'decline' }, CTX), {
      kind: 'decision',
      input: {
        type: 'approval',
        toolCallId: 'call_abc',
        userId: 'u-1',
        decision: 'reject',
        reason: 'declined in the MCP client',
      },
    });
  });

  it('cancel rejects the call too, whatever the content says', () => {
    assert.deepEqual(readApprovalAnswer({ action: 'cancel', content: { decision: 'approve' } }, CTX), {
      kind: 'decision',
      input: {
        type: 'approval',
        toolCallId: 'call_abc',
        userId: 'u-1',
        decision: 'reject',
        reason: 'the MCP client cancelled the approval',
      },
    });
    const declined = readApprovalAnswer({ action: 'decline', content: { decision: 'approve' } }, CTX);
    assert.equal(declined.kind === 'decision' ? declined.input.decision : undefined, 'reject');
  });
});
