import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';
import { describeError, isJsonObject, parseJson, type RunInput } from '../core/index.ts';
import type { GatewayHeld } from './gateway-call.ts';

/** The key of the approval question among an input_required result's requests. */
export const APPROVAL_INPUT_KEY = 'toolgate_approval';

/** A held call of a session's run, as its person is asked about it. */
export interface HeldCall extends GatewayHeld {
  runId: string;
}

/** The elicitation form a client shows its user for a held call: decide, optionally edit, optionally say why. */
export function approvalForm(
  held: HeldCall,
  problem?: string,
): Pick<ElicitRequestFormParams, 'message' | 'requestedSchema'> {
  const args = JSON.stringify(held.arguments, null, 2);
  const why =
    held.reason === 'untrusted_output' ? 'it follows untrusted tool output' : 'the policy asks a person for this tool';
  const message = [
    ...(problem === undefined ? [] : [`${problem}`, '']),
    `toolgate holds a call to ${held.name} ` +
      `(${held.effect === 'write' ? 'changes state' : 'reads'}) for your approval: ${why}.`,
    `Arguments:\n${args}`,
    `(run ${held.runId}, call ${held.toolCallId})`,
  ].join('\n');
  return {
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          description: 'approve: run it as shown; edit: run it with the arguments below; reject: do not run it',
          enum: ['approve', 'reject', 'edit'],
          enumNames: ['Approve', 'Reject', 'Edit the arguments'],
        },
        arguments: {
          type: 'string',
          title: 'Arguments (JSON)',
          description: 'Only read with "edit": the arguments to run it with, as a JSON object',
          default: JSON.stringify(held.arguments),
        },
        reason: {
          type: 'string',
          title: 'Reason',
          description: 'Recorded with the decision (and told to the client on a rejection)',
        },
      },
      required: ['decision'],
    },
  };
}

export type FormAnswer =
  { kind: 'decision'; input: Extract<RunInput, { type: 'approval' }> } | { kind: 'invalid'; problem: string };

/** Reads the client's answer to the approval form. Decline and cancel reject the call; a bad edit asks again. */
export function readApprovalAnswer(
  answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> | undefined },
  context: { toolCallId: string; userId?: string | undefined },
): FormAnswer {
  const base = {
    type: 'approval' as const,
    toolCallId: context.toolCallId,
    ...(context.userId === undefined ? {} : { userId: context.userId }),
  };
  if (answer.action !== 'accept') {
    return {
      kind: 'decision',
      input: {
        ...base,
        decision: 'reject',
        reason: answer.action === 'decline' ? 'declined in the MCP client' : 'the MCP client cancelled the approval',
      },
    };
  }
  const content = answer.content ?? {};
  const decision = content['decision'];
  const reason =
    typeof content['reason'] === 'string' && content['reason'].trim() !== ''
      ? content['reason'].trim().slice(0, 2000)
      : undefined;
  const withReason = reason === undefined ? base : { ...base, reason };
  if (decision === 'approve' || decision === 'reject') return { kind: 'decision', input: { ...withReason, decision } };
  if (decision !== 'edit')
    return {
      kind: 'invalid',
      problem: `The decision must be approve, reject or edit (got ${JSON.stringify(decision)}).`,
    };
  const raw = content['arguments'];
  if (typeof raw !== 'string')
    return { kind: 'invalid', problem: 'With "edit", give the new arguments as a JSON object.' };
  let parsed: unknown;
  try {
    parsed = parseJson(raw);
  } catch (error) {
    return {
      kind: 'invalid',
      problem: `The edited arguments are not valid JSON (${describeError(error)}): fix them, or approve or reject.`,
    };
  }
  if (!isJsonObject(parsed))
    return {
      kind: 'invalid',
      problem: 'The edited arguments must be a JSON object ({"name": value, …}): fix them, or approve or reject.',
    };
  return { kind: 'decision', input: { ...withReason, decision: 'edit', arguments: parsed } };
}
